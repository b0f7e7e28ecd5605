"""Retries, backoff, Retry-After and Idempotency-Key reuse (unit, MockTransport)."""

from __future__ import annotations

import httpx
import pytest

import disco
from disco._base import RetryPolicy
from helpers import PROJECT, client, error, sequence


def test_backoff_is_exponential_with_cap() -> None:
    p = RetryPolicy(base_delay=1.0, max_delay=60.0)
    assert [p.backoff(i, rand=lambda: 1.0) for i in range(8)] == [1, 2, 4, 8, 16, 32, 60, 60]
    assert p.backoff(3, rand=lambda: 0.25) == 2.0  # full jitter: uniform(0, ceiling)
    for i in range(10):
        assert 0 <= p.backoff(i) <= min(60, 2**i)


def test_5xx_is_retried_with_backoff() -> None:
    c, rec = client(sequence(error(503, "service_unavailable"), error(500, "internal_error"), httpx.Response(200, json=PROJECT)))
    p = c.projects.get(PROJECT["id"])
    assert p.name == "pendulum"
    assert len(rec.requests) == 3
    assert len(rec.sleeps) == 2
    assert 0 <= rec.sleeps[0] <= 1 and 0 <= rec.sleeps[1] <= 2


def test_429_honours_retry_after() -> None:
    c, rec = client(sequence(error(429, "rate_limited", headers={"Retry-After": "7"}), httpx.Response(200, json=PROJECT)))
    c.projects.get(PROJECT["id"])
    assert rec.sleeps == [7.0]


def test_429_without_retry_after_backs_off() -> None:
    c, rec = client(sequence(error(429, "rate_limited"), error(429, "rate_limited"), httpx.Response(200, json=PROJECT)))
    c.projects.get(PROJECT["id"])
    assert len(rec.sleeps) == 2 and all(0 <= s <= 2 for s in rec.sleeps)


def test_gives_up_after_max_retries() -> None:
    c, rec = client(sequence(error(500, "internal_error")), max_retries=3)
    with pytest.raises(disco.InternalServerError) as ei:
        c.projects.get(PROJECT["id"])
    assert len(rec.requests) == 4
    assert len(rec.sleeps) == 3
    assert ei.value.status == 500 and ei.value.request_id == "req_" + "a" * 26


def test_rate_limit_error_after_retries_carries_retry_after() -> None:
    c, rec = client(sequence(error(429, "rate_limited", headers={"Retry-After": "3"})), max_retries=1)
    with pytest.raises(disco.RateLimitError) as ei:
        c.projects.get(PROJECT["id"])
    assert ei.value.retry_after == 3.0
    assert rec.sleeps == [3.0]


def test_post_retry_reuses_idempotency_key() -> None:
    c, rec = client(sequence(error(502, "internal_error"), error(503, "service_unavailable"), httpx.Response(201, json=PROJECT)))
    c.projects.create("pendulum")
    keys = [r.headers.get("Idempotency-Key") for r in rec.requests]
    assert len(keys) == 3 and keys[0] and len(set(keys)) == 1
    assert rec.bodies[0] == rec.bodies[1] == rec.bodies[2]


def test_each_logical_post_gets_its_own_key() -> None:
    c, rec = client(sequence(httpx.Response(201, json=PROJECT)))
    c.projects.create("a")
    c.projects.create("b")
    k1, k2 = (r.headers["Idempotency-Key"] for r in rec.requests)
    assert k1 != k2


def test_explicit_idempotency_key_is_sent() -> None:
    c, rec = client(sequence(httpx.Response(201, json=PROJECT)))
    c.projects.create("a", idempotency_key="my-key-1")
    assert rec.requests[0].headers["Idempotency-Key"] == "my-key-1"


def test_get_has_no_idempotency_key() -> None:
    c, rec = client(sequence(httpx.Response(200, json=PROJECT)))
    c.projects.get(PROJECT["id"])
    assert "Idempotency-Key" not in rec.requests[0].headers


@pytest.mark.parametrize("code", ["duplicate_run", "idempotency_key_reused", "run_not_completed", "dataset_not_ready"])
def test_unsafe_409_is_not_retried(code: str) -> None:
    c, rec = client(sequence(error(409, code)))
    with pytest.raises(disco.ConflictError) as ei:
        c.projects.create("x")
    assert ei.value.code == code
    assert len(rec.requests) == 1 and rec.sleeps == []


@pytest.mark.parametrize("code", ["conflict", "idempotency_key_in_flight"])
def test_transient_409_is_retried(code: str) -> None:
    c, rec = client(sequence(error(409, code), httpx.Response(200, json=PROJECT)))
    c.projects.update(PROJECT["id"], name="new")
    assert len(rec.requests) == 2


def test_governance_refusal_is_not_retried() -> None:
    c, rec = client(sequence(error(403, "governance_policy_violation", constraint="promotion_ceiling_exceeded")))
    with pytest.raises(disco.GovernancePolicyViolation):
        c.claims.promote("proj_x", "clm_x", "publish", rationale="r")
    assert len(rec.requests) == 1


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_errors_are_not_retried(status: int) -> None:
    c, rec = client(sequence(error(status, "x")))
    with pytest.raises(disco.DiscoError):
        c.projects.get("proj_x")
    assert len(rec.requests) == 1


def test_connect_error_is_retried() -> None:
    calls = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] < 3:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(200, json=PROJECT)

    c, rec = client(handler)
    assert c.projects.get(PROJECT["id"]).id == PROJECT["id"]
    assert len(rec.sleeps) == 2


def test_connection_error_is_typed_when_retries_run_out() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    c, _ = client(handler, max_retries=1)
    with pytest.raises(disco.APIConnectionError):
        c.projects.get("proj_x")


def test_read_timeout_on_post_is_retried_with_same_key() -> None:
    calls = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            raise httpx.ReadTimeout("slow", request=request)
        return httpx.Response(201, json=PROJECT)

    c, rec = client(handler)
    c.projects.create("p")
    assert rec.requests[0].headers["Idempotency-Key"] == rec.requests[1].headers["Idempotency-Key"]


@pytest.mark.anyio
async def test_async_retries_and_key_reuse() -> None:
    from helpers import async_client

    c, rec = async_client(sequence(error(503, "service_unavailable"), error(429, "rate_limited", headers={"Retry-After": "2"}), httpx.Response(201, json=PROJECT)))
    async with c:
        p = await c.projects.create("pendulum")
    assert p.id == PROJECT["id"]
    assert len(rec.requests) == 3 and rec.sleeps[1] == 2.0
    assert len({r.headers["Idempotency-Key"] for r in rec.requests}) == 1
