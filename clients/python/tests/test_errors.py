"""Typed exceptions from the error envelope."""

from __future__ import annotations

import httpx
import pytest

import disco
from disco.errors import error_from_response
from helpers import client, envelope, error, sequence


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (400, "validation_error", disco.BadRequestError),
        (401, "unauthenticated", disco.AuthenticationError),
        (403, "insufficient_scope", disco.PermissionDeniedError),
        (403, "governance_policy_violation", disco.GovernancePolicyViolation),
        (403, "truth_dial_threshold_not_met", disco.TruthDialThresholdNotMet),
        (403, "negative_controls_required", disco.NegativeControlsRequired),
        (403, "budget_exhausted", disco.BudgetExhausted),
        (404, "not_found", disco.NotFoundError),
        (409, "duplicate_run", disco.ConflictError),
        (413, "payload_too_large", disco.PayloadTooLargeError),
        (422, "dataset_format_unsupported", disco.UnprocessableEntityError),
        (429, "rate_limited", disco.RateLimitError),
        (500, "internal_error", disco.InternalServerError),
        (500, "ledger_integrity_error", disco.LedgerIntegrityError),
        (503, "service_unavailable", disco.ServiceUnavailableError),
        (502, "bad_gateway", disco.InternalServerError),
    ],
)
def test_class_by_status_and_code(status: int, code: str, cls: type[disco.DiscoError]) -> None:
    import json

    e = error_from_response(status, json.dumps(envelope(status, code, constraint="c")).encode(), {})
    assert type(e) is cls
    assert isinstance(e, disco.DiscoError)
    assert e.status == status and e.code == code and e.message == "boom"
    assert e.details == {"constraint": "c"}
    assert e.request_id == "req_" + "a" * 26
    assert e.documentation_url and e.documentation_url.endswith("/docs/errors/" + code)


def test_governance_hierarchy() -> None:
    for cls in (disco.GovernancePolicyViolation, disco.TruthDialThresholdNotMet, disco.NegativeControlsRequired, disco.BudgetExhausted):
        assert issubclass(cls, disco.PermissionDeniedError)
        assert issubclass(cls, disco.GovernanceError)
    assert issubclass(disco.LedgerIntegrityError, disco.InternalServerError)


def test_governance_details_reach_the_exception() -> None:
    c, _ = client(
        sequence(
            error(
                403,
                "governance_policy_violation",
                claim_id="clm_x",
                requested_tier="publish",
                policy_ceiling="validate",
                truth_dial_score=0.91,
                constraint="promotion_ceiling_exceeded",
            )
        )
    )
    with pytest.raises(disco.GovernancePolicyViolation) as ei:
        c.claims.promote("proj_x", "clm_x", "publish")
    e = ei.value
    assert e.constraint == "promotion_ceiling_exceeded"
    assert e.details["policy_ceiling"] == "validate"
    assert "403 governance_policy_violation" in str(e)


def test_non_json_error_body() -> None:
    e = error_from_response(502, b"<html>bad gateway</html>", {"X-Request-Id": "req_z"})
    assert isinstance(e, disco.InternalServerError)
    assert e.request_id == "req_z" and "bad gateway" in e.message


def test_oauth_style_error() -> None:
    e = error_from_response(400, b'{"error":"invalid_grant","error_description":"expired code"}', {})
    assert isinstance(e, disco.BadRequestError)
    assert e.code == "invalid_grant" and e.message == "expired code"


def test_validation_fields() -> None:
    import json

    body = envelope(400, "validation_error", fields=[{"field": "body.name", "message": "required"}])
    e = error_from_response(400, json.dumps(body).encode(), {})
    assert isinstance(e, disco.BadRequestError)
    assert e.fields == [{"field": "body.name", "message": "required"}]


def test_retry_after_http_date() -> None:
    from email.utils import formatdate
    import time

    e = error_from_response(429, b"{}", {"Retry-After": formatdate(time.time() + 30, usegmt=True)})
    assert isinstance(e, disco.RateLimitError)
    assert e.retry_after is not None and 25 <= e.retry_after <= 31


def test_authorization_header_and_user_agent() -> None:
    c, rec = client(sequence(httpx.Response(200, json={"object": "list", "data": [], "has_more": False})), api_key="disco_key_abc")
    list(c.projects.list())
    h = rec.requests[0].headers
    assert h["Authorization"] == "Bearer disco_key_abc"
    assert h["User-Agent"].startswith("disco-client-python/")


def test_env_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCO_BASE_URL", "http://example.test/v1/")
    monkeypatch.setenv("DISCO_API_KEY", "disco_key_env")
    c = disco.Client()
    assert c.base_url == "http://example.test/v1"
    assert c.api_key == "disco_key_env"
    c2 = disco.Client("http://other/v1", "disco_key_arg")
    assert c2.base_url == "http://other/v1" and c2.api_key == "disco_key_arg"
    c.close()
    c2.close()
