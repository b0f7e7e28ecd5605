"""Models tolerate unknown fields; claims carry their type's fields; the sync client is
generated from the async one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import disco

ROOT = Path(__file__).resolve().parent.parent


def test_unknown_fields_are_kept() -> None:
    p = disco.Project.model_validate({"id": "proj_x", "name": "n", "future_field": {"a": 1}, "settings": {"governance": {"new": True}}})
    assert p.model_extra == {"future_field": {"a": 1}}
    assert p.settings.governance.model_extra == {"new": True}
    assert p.model_dump()["future_field"] == {"a": 1}


def test_list_item_shape_parses() -> None:
    p = disco.Project.model_validate({"id": "proj_x", "name": "n", "status": "active", "created_at": "2025-01-01T00:00:00Z"})
    assert p.created_at is not None and p.created_at.year == 2025


def test_law_causal_conservation_claims() -> None:
    law = disco.Claim.model_validate(
        {
            "id": "clm_1",
            "type": "law",
            "tier": "explore",
            "summary": "period law",
            "score": 0.9,
            "scope": {"variables": ["L", "T"], "domain": "L in [0.1, 2]", "constraints_satisfied": ["dimensional"]},
            "evidence": {"r_squared": 0.99, "negative_controls_passed": True, "cross_validation_score": 0.98},
            "expression": "T = 2.006 * L^0.5",
            "ledger_entry_id": "led_1",
            "run_id": "run_1",
            "created_at": "2025-01-01T00:00:00Z",
        }
    )
    assert law.is_law and law.expression and law.evidence.r_squared == 0.99
    causal = disco.Claim.model_validate(
        {
            "id": "clm_2",
            "type": "causal",
            "cause": "x",
            "effect": "y",
            "direction": "x->y",
            "temporal_scope": "lag 2",
            "intervention_markers": ["do(x)"],
            "evidence": {"negative_controls_passed": True, "granger_score": 12.3, "intervention_effect_size": 0.4},
        }
    )
    assert causal.is_causal and causal.cause == "x" and causal.evidence.granger_score == 12.3
    cons = disco.Claim.model_validate(
        {"id": "clm_3", "type": "conservation", "expression": "v^2/2 + 9.81*h", "variables": ["v", "h"], "evidence": {"relative_variation": 0.001, "trajectories": 5}}
    )
    assert cons.is_conservation and cons.variables == ["v", "h"] and cons.evidence.trajectories == 5


def test_promotion_result_and_ledger_entry() -> None:
    pr = disco.PromotionResult.model_validate(
        {
            "id": "clm_1",
            "type": "law",
            "tier": "validate",
            "previous_tier": "explore",
            "promoted_at": "2025-01-01T00:00:00Z",
            "promoted_by": "usr_1",
            "rationale": "r",
            "ledger_entry_id": "led_2",
            "governance_checks": {"truth_dial_score": 0.9, "threshold_met": True, "negative_controls": "passed", "policy_ceiling": "validate", "within_ceiling": True},
        }
    )
    assert pr.governance_checks is not None and pr.governance_checks.within_ceiling
    le = disco.LedgerEntry.model_validate({"id": "led_1", "event_type": "claim_created", "claim_id": "clm_1", "details": {"claim_type": "law"}, "actor": "system", "timestamp": "2025-01-01T00:00:00Z", "hash": "ab"})
    assert le.details["claim_type"] == "law" and le.hash == "ab"
    assert disco.LedgerVerification.model_validate({"valid": True, "size": 3}).ok
    assert not disco.LedgerVerification.model_validate({"valid": False, "first_bad_index": 2, "reason": "hash mismatch"}).ok


def test_token_response() -> None:
    t = disco.TokenResponse.model_validate({"access_token": "disco_session_x", "token_type": "Bearer", "expires_in": 86400, "refresh_token": "disco_refresh_x", "scope": "a b", "tenant_id": "ten_x"})
    assert t.scopes == ["a", "b"]


def test_sync_client_is_generated_from_async() -> None:
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "unasync.py"), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_sync_and_async_have_the_same_resources() -> None:
    c = disco.Client("http://x/v1", "k")
    a = disco.AsyncClient("http://x/v1", "k")
    for name in ("projects", "campaigns", "datasets", "runs", "claims", "ledger", "webhooks", "api_keys", "oauth"):
        sync_methods = {m for m in dir(getattr(c, name)) if not m.startswith("_")}
        async_methods = {m for m in dir(getattr(a, name)) if not m.startswith("_")}
        assert sync_methods == async_methods, name
        assert sync_methods
    c.close()


def test_readme_python_blocks_compile() -> None:
    import re

    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert len(blocks) >= 4
    for b in blocks:
        compile(b, "README.md", "exec")
