"""Live tests of ledger checkpoints and consistency (issue 17) against `disco dev`.

The truncation test changes the stack's SQLite database behind the service, as someone
with database access could; it runs only on a stack this session started (so the data
directory is known) and on a project of its own.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import disco
from live_stack import LiveStack
from test_live import pendulum_csv

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def c(live_stack: LiveStack) -> Iterator[disco.Client]:
    with disco.Client(live_stack.base_url, live_stack.api_key) as client:
        yield client


@pytest.fixture(scope="module")
def ledgered(c: disco.Client, live_stack: LiveStack, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A project of its own whose ledger has entries (a completed run's claims), and a
    claim whose promotion beyond the ceiling is refused and ledgered on demand."""
    live_stack.require("get", "/projects/{project_id}/ledger/checkpoint")
    project = c.projects.create(
        f"ledger-{uuid.uuid4().hex[:8]}",
        settings={"governance": {"promotion_ceiling": "validate", "truth_dial_threshold": 0.5}},
    )
    ds = c.datasets.upload(project.id, pendulum_csv(tmp_path_factory.mktemp("ledger") / "pendulum.csv"))
    c.datasets.wait(project.id, ds.id, timeout=120, poll_interval=0.5)
    camp = c.campaigns.create(project.id, "ledger", compute_units=100000, max_runs=5)
    run = c.runs.create(project.id, camp.id, mode="symbolic", dataset_id=ds.id, target_variables=["T"], max_complexity=8)
    c.runs.wait(project.id, camp.id, run.id, timeout=600)
    claims = list(c.claims.list(project.id, run_id=run.id))
    assert claims, "the run made claims"
    return project.id, claims[0].id


def refused_promotion(c: disco.Client, project_id: str, claim_id: str) -> None:
    """A promotion above the ceiling: refused, and ledgered as policy_evaluated."""
    with pytest.raises(disco.GovernanceError):
        c.claims.promote(project_id, claim_id, "publish", rationale="beyond the ceiling")


def truncate(db: Path, project_id: str, n: int) -> None:
    """Keep the project's first n entries, dropping the rest with their tree hashes and
    moving the head, with the append-only triggers out of the way: the ledger stays
    internally consistent."""
    con = sqlite3.connect(db, timeout=30, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        triggers = con.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE 'ledger_%'"
        ).fetchall()
        for name, _ in triggers:
            con.execute(f"DROP TRIGGER {name}")
        (last,) = con.execute(
            "SELECT hash FROM ledger_entries WHERE project_id = ? AND tree_index = ?", (project_id, n - 1)
        ).fetchone()
        con.execute("DELETE FROM ledger_entries WHERE project_id = ? AND tree_index >= ?", (project_id, n))
        # tlog stores 2n - popcount(n) hashes for a tree of n leaves.
        con.execute(
            "DELETE FROM ledger_tree_hashes WHERE project_id = ? AND idx >= ?", (project_id, 2 * n - bin(n).count("1"))
        )
        con.execute("UPDATE ledger_heads SET size = ?, last_hash = ? WHERE project_id = ?", (n, last, project_id))
        for _, sql in triggers:
            con.execute(sql)
        con.execute("COMMIT")
    finally:
        con.close()


def test_checkpoint_and_append_live(c: disco.Client, ledgered: tuple[str, str]) -> None:
    project_id, claim_id = ledgered
    vkey = c.ledger.verifier_key()
    name, key_hash, _ = vkey.split("+", 2)
    kept = c.ledger.checkpoint(project_id)
    v = c.ledger.verify(project_id)
    assert v.ok and kept.size == v.size >= 1 and kept.root_hash_b64 == v.root_hash
    assert kept.origin == f"disco-ledger/{project_id}"
    assert [(s.name, s.key_hash) for s in kept.signatures] == [(name, int(key_hash, 16))]

    assert c.ledger.verify_consistency(project_id, kept.note).appended == 0
    refused_promotion(c, project_id, claim_id)
    check = c.ledger.verify_consistency(project_id, kept.note)
    assert check.appended == 1 and check.proof and check.current.size == kept.size + 1


def test_truncation_and_regrowth_caught_live(c: disco.Client, live_stack: LiveStack, ledgered: tuple[str, str]) -> None:
    if live_stack.data_dir is None:
        pytest.skip("changes the stack's database: only on a stack this session started")
    project_id, claim_id = ledgered
    refused_promotion(c, project_id, claim_id)
    kept = c.ledger.checkpoint(project_id)
    assert kept.size >= 2

    truncate(live_stack.data_dir / "disco.db", project_id, kept.size - 1)
    assert c.ledger.verify(project_id).ok, "the service's own verification cannot tell"
    with pytest.raises(disco.LedgerConsistencyError) as e:
        c.ledger.verify_consistency(project_id, kept.note)
    assert e.value.code == "ledger_truncated"

    # Grown again past the kept size by the service itself: a different history.
    refused_promotion(c, project_id, claim_id)
    refused_promotion(c, project_id, claim_id)
    assert c.ledger.verify(project_id).ok and c.ledger.checkpoint(project_id).size == kept.size + 1
    with pytest.raises(disco.LedgerConsistencyError) as e:
        c.ledger.verify_consistency(project_id, kept.note)
    assert e.value.code == "ledger_rewritten"
