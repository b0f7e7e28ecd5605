"""The users room (/users), one webhook delivery, and the additive fields of issue 16's
regenerated models: key last_used_at, profile histograms and top values, attempt logs."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

import disco
from helpers import BASE, async_client, client, error

USER_ID = "usr_" + "a" * 26


def user(i: int = 0, status: str = "active") -> dict[str, object]:
    u: dict[str, object] = {
        "id": f"usr_{i:026d}" if i else USER_ID,
        "username": f"user{i}",
        "status": status,
        "created_at": "2026-01-01T00:00:00Z",
    }
    if status == "disabled":
        u["disabled_at"] = "2026-01-02T00:00:00Z"
    return u


def paged_users(n: int) -> Callable[[httpx.Request], httpx.Response]:
    users = [user(i + 1) for i in range(n)]

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/users"
        limit = int(request.url.params.get("limit", "20"))
        cursor = request.url.params.get("cursor")
        start = int(cursor.removeprefix("c")) if cursor else 0
        body: dict[str, object] = {"object": "list", "data": users[start : start + limit], "has_more": start + limit < n}
        if start + limit < n:
            body["next_cursor"] = f"c{start + limit}"
        return httpx.Response(200, json=body)

    return handler


def test_list_pages_through_users_with_filters() -> None:
    c, rec = client(paged_users(25))
    got = c.users.list(status="active", sort="username", order="asc", limit=10).to_list()
    assert [u.username for u in got] == [f"user{i + 1}" for i in range(25)]
    assert all(isinstance(u, disco.User) for u in got)
    assert len(rec.requests) == 3
    first = dict(rec.requests[0].url.params)
    assert first == {"status": "active", "sort": "username", "order": "asc", "limit": "10"}
    assert [r.url.params.get("cursor") for r in rec.requests[1:]] == ["c10", "c20"]
    assert all(r.method == "GET" for r in rec.requests)


def test_list_sends_no_unset_filters() -> None:
    c, rec = client(paged_users(1))
    assert len(list(c.users.list())) == 1
    assert dict(rec.requests[0].url.params) == {}


def test_get_disable_enable_delete() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET" and path == f"/v1/users/{USER_ID}":
            return httpx.Response(200, json=user())
        if request.method == "POST" and path == f"/v1/users/{USER_ID}/disable":
            return httpx.Response(200, json=user(status="disabled"))
        if request.method == "POST" and path == f"/v1/users/{USER_ID}/enable":
            return httpx.Response(200, json=user())
        if request.method == "DELETE" and path == f"/v1/users/{USER_ID}":
            return httpx.Response(204)
        return error(404, "not_found")

    c, rec = client(handler)
    u = c.users.get(USER_ID)
    assert u.id == USER_ID and u.status == "active" and u.disabled_at is None
    d = c.users.disable(USER_ID)
    assert d.status == "disabled" and d.disabled_at is not None
    assert c.users.enable(USER_ID).status == "active"
    assert c.users.delete(USER_ID) is None
    assert [(r.method, r.url.path) for r in rec.requests] == [
        ("GET", f"/v1/users/{USER_ID}"),
        ("POST", f"/v1/users/{USER_ID}/disable"),
        ("POST", f"/v1/users/{USER_ID}/enable"),
        ("DELETE", f"/v1/users/{USER_ID}"),
    ]
    # POSTs carry an idempotency key, as every other POST of the client.
    assert all(r.headers.get("idempotency-key") for r in rec.requests if r.method == "POST")


def test_user_id_is_one_path_segment() -> None:
    c, rec = client(lambda r: httpx.Response(200, json=user()))
    c.users.get("usr_x/../api-keys")
    assert rec.requests[0].url.raw_path.decode() == "/v1/users/usr_x%2F..%2Fapi-keys"


@pytest.mark.parametrize("call", ["get", "disable", "enable", "delete"])
def test_unknown_user_is_not_found(call: str) -> None:
    c, rec = client(lambda r: error(404, "not_found", resource="user", id="usr_nope"))
    with pytest.raises(disco.NotFoundError) as ei:
        getattr(c.users, call)("usr_nope")
    assert ei.value.status == 404 and ei.value.code == "not_found"
    assert len(rec.requests) == 1  # a 404 is not retried


def test_delete_of_self_is_a_conflict() -> None:
    c, _ = client(lambda r: error(409, "conflict", user_id=USER_ID))
    with pytest.raises(disco.ConflictError):
        c.users.delete(USER_ID)


@pytest.mark.anyio
async def test_async_users() -> None:
    c, rec = async_client(paged_users(3))
    got = [u.id async for u in c.users.list(limit=2)]
    assert len(got) == 3 and len(rec.requests) == 2
    await c.aclose()
    c2, _ = async_client(lambda r: error(404, "not_found"))
    with pytest.raises(disco.NotFoundError):
        await c2.users.disable(USER_ID)
    await c2.aclose()


DELIVERY = {
    "id": "dlv_" + "d" * 26,
    "webhook_id": "whk_" + "w" * 26,
    "status": "failed",
    "attempts": 2,
    "attempt_log": [
        {
            "attempt": 2,
            "sent_at": "2026-01-01T00:01:00Z",
            "duration_ms": 12,
            "status_code": 500,
            "error": "HTTP 500",
            "signature": {"x_service_signature": "t=1,v1=ab", "webhook_id": "evt_x"},
        },
        {"attempt": 1, "sent_at": "2026-01-01T00:00:00Z", "duration_ms": 30, "error": "timeout"},
    ],
}


def test_webhook_delivery() -> None:
    c, rec = client(lambda r: httpx.Response(200, json=DELIVERY))
    d = c.webhooks.delivery("whk_" + "w" * 26, "dlv_" + "d" * 26)
    assert rec.requests[0].method == "GET"
    assert str(rec.requests[0].url) == f"{BASE}/webhooks/whk_{'w' * 26}/deliveries/dlv_{'d' * 26}"
    assert isinstance(d, disco.WebhookDelivery)
    assert [a.attempt for a in d.attempt_log] == [2, 1]
    assert isinstance(d.attempt_log[0], disco.WebhookDeliveryAttempt)
    assert d.attempt_log[0].error == "HTTP 500" and d.attempt_log[1].duration_ms == 30
    sig = d.attempt_log[0].signature
    assert sig is not None and sig.x_service_signature == "t=1,v1=ab" and d.attempt_log[1].signature is None


def test_webhook_delivery_not_found() -> None:
    c, _ = client(lambda r: error(404, "not_found", resource="delivery"))
    with pytest.raises(disco.NotFoundError):
        c.webhooks.delivery("whk_x", "dlv_nope")


def test_delivery_without_attempt_log_parses() -> None:
    d = disco.WebhookDelivery.model_validate({"id": "dlv_x", "attempts": 1})
    assert d.attempt_log == []


def test_profile_histogram_and_top_values() -> None:
    profile = {
        "dataset_id": "ds_x",
        "status": "ready",
        "row_count": 4,
        "column_count": 2,
        "columns": [
            {
                "name": "x",
                "dtype": "float64",
                "mean": 2.5,
                "min": 1.0,
                "max": 4.0,
                "histogram": {"low": 1.0, "high": 4.0, "counts": [1, 1, 2]},
            },
            {
                "name": "kind",
                "dtype": "string",
                "distinct_values": 2,
                "top_values": [{"value": "a", "count": 3}, {"value": "b", "count": 1}],
            },
        ],
    }
    c, _ = client(lambda r: httpx.Response(200, json=profile))
    p = c.datasets.profile("proj_x", "ds_x")
    x, kind = p.columns
    assert x.min == 1.0 and x.max == 4.0
    assert x.histogram is not None and x.histogram.counts == [1, 1, 2] and x.histogram.low == 1.0
    assert isinstance(x.histogram, disco.models.ColumnHistogram)
    assert x.top_values is None and kind.histogram is None
    assert kind.distinct_values == 2
    assert kind.top_values is not None and [(v.value, v.count) for v in kind.top_values] == [("a", 3), ("b", 1)]
    assert isinstance(kind.top_values[0], disco.models.ValueCount)


def test_api_key_last_used_at() -> None:
    k = disco.APIKey.model_validate({"id": "key_x", "last_used_at": "2026-01-01T00:00:00Z"})
    assert k.last_used_at is not None and k.last_used_at.year == 2026
    assert disco.APIKey.model_validate({"id": "key_x"}).last_used_at is None
