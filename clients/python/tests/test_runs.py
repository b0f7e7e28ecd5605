"""runs.create body and runs.wait with the pipeline progress bar."""

from __future__ import annotations

import io
from typing import Any

import httpx
import pytest

import disco
from helpers import async_client, body_json, client

P, C, R = "proj_x", "camp_x", "run_" + "r" * 26
BASE_PATH = f"/v1/projects/{P}/campaigns/{C}/runs/{R}"
STAGES = ["data_validation", "feature_extraction", "neural_pretraining", "symbolic_regression", "negative_controls", "claim_generation"]


def status(done: int, running_progress: float | None = None, final: str | None = None) -> dict[str, Any]:
    stages = []
    for i, name in enumerate(STAGES):
        if i < done:
            stages.append({"name": name, "status": "completed", "duration_ms": 100 * (i + 1)})
        elif i == done and final is None:
            s: dict[str, Any] = {"name": name, "status": "running"}
            if running_progress is not None:
                s["progress"] = running_progress
            stages.append(s)
        else:
            stages.append({"name": name, "status": "pending"})
    st = final or ("running" if done < len(STAGES) else "completed")
    cur = STAGES[done] if done < len(STAGES) else None
    return {"id": R, "status": st, "compute_units_used": done, "pipeline": {"current_stage": cur, "stages": stages}}


RESULTS = {
    "run_id": R,
    "status": "completed",
    "claims_count": 2,
    "artifacts_count": 1,
    "summary": {"best_claim_id": "clm_x", "best_claim_type": "law", "best_claim_score": 0.93, "negative_controls_passed": True},
    "compute_units_used": 6,
    "duration_ms": 2100,
    "completed_at": "2025-01-01T00:00:00Z",
}


def run_server(statuses: list[dict[str, Any]]) -> Any:
    it = iter(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == BASE_PATH + "/status":
            return httpx.Response(200, json=next(it))
        if request.url.path == BASE_PATH + "/results":
            return httpx.Response(200, json=RESULTS)
        return httpx.Response(404, json={"error": {"code": "not_found", "message": request.url.path, "status": 404}})

    return handler


def test_wait_returns_results_and_shows_stages() -> None:
    seq = [{"id": R, "status": "queued"}, status(0, 0.5), status(2), status(4, 0.2), status(6)]
    c, rec = client(run_server(seq))
    out = io.StringIO()
    res = c.runs.wait(P, C, R, progress=True, progress_file=out, poll_interval=2)
    assert isinstance(res, disco.RunResults)
    assert res.claims_count == 2 and res.summary.best_claim_score == 0.93
    assert rec.sleeps == [2, 2, 2, 2]
    text = out.getvalue()
    for name in STAGES:
        assert f"stage {name} completed" in text
    assert "100%" in text


def test_wait_without_progress_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    c, _ = client(run_server([status(6)]))
    c.runs.wait(P, C, R, progress=False)
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err == ""


@pytest.mark.parametrize(("final", "exc"), [("failed", disco.RunFailedError), ("cancelled", disco.RunCancelledError)])
def test_wait_raises_on_failure(final: str, exc: type[disco.DiscoError]) -> None:
    st = status(3, final=final)
    st["message"] = "engine exploded"
    c, _ = client(run_server([status(1), st]))
    with pytest.raises(exc) as ei:
        c.runs.wait(P, C, R, progress=False)
    assert ei.value.details["run_id"] == R
    if final == "failed":
        assert "engine exploded" in str(ei.value)


def test_wait_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    c, _ = client(run_server([status(1)] * 100))
    with pytest.raises(disco.WaitTimeoutError):
        c.runs.wait(P, C, R, progress=False, timeout=0)


def test_progress_from_bare_number() -> None:
    from disco._base import RunProgress

    st = disco.RunStatus.model_validate({"id": R, "status": "running", "progress": 0.25})
    assert RunProgress.percent(st) == 25.0
    st2 = disco.RunStatus.model_validate(status(3, 0.5))
    assert RunProgress.percent(st2) == pytest.approx(100 * 3.5 / 6)


def test_create_body() -> None:
    run = {"id": R, "status": "queued", "mode": "neuro_symbolic", "dataset_id": "ds_x", "parameters": {}, "compute_units_estimated": 40}

    c, rec = client(lambda r: httpx.Response(201, json=run))
    out = c.runs.create(
        P,
        C,
        mode="neuro_symbolic",
        dataset_id="ds_x",
        target_variables=["theta"],
        max_complexity=12,
        cross_validate=True,
        negative_controls=["shuffled_target"],
        evidence_threshold=0.8,
    )
    assert out.status == "queued" and out.compute_units_estimated == 40
    assert rec.requests[0].url.path == f"/v1/projects/{P}/campaigns/{C}/runs"
    assert body_json(rec.requests[0]) == {
        "mode": "neuro_symbolic",
        "dataset_id": "ds_x",
        "parameters": {"target_variables": ["theta"], "max_complexity": 12, "cross_validate": True},
        "governance": {"negative_controls": ["shuffled_target"], "evidence_threshold": 0.8},
    }
    assert rec.requests[0].headers["Idempotency-Key"]


@pytest.mark.anyio
async def test_async_wait() -> None:
    c, _ = async_client(run_server([status(2), status(6)]))
    res = await c.runs.wait(P, C, R, progress=False)
    assert res.run_id == R
    await c.aclose()


def test_skipped_stage_counts_as_done() -> None:
    from disco._base import RunProgress

    st = status(3, None)
    st["pipeline"]["stages"][2]["status"] = "skipped"  # e.g. neural_pretraining in symbolic mode
    s = disco.RunStatus.model_validate(st)
    assert RunProgress.percent(s) == pytest.approx(50.0)
    assert "-neural_pretraining" in RunProgress.describe(s)
