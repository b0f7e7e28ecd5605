"""Lazy auto-pagination over cursor pages."""

from __future__ import annotations

import httpx
import pytest

import disco
from helpers import async_client, client


def paged_server(n: int) -> tuple[list[dict[str, object]], "callable"]:  # type: ignore[valid-type]
    items = [{"id": f"clm_{i:026d}", "type": "law", "tier": "explore", "summary": f"c{i}", "score": 0.5} for i in range(n)]

    def handler(request: httpx.Request) -> httpx.Response:
        limit = int(request.url.params.get("limit", "20"))
        cursor = request.url.params.get("cursor")
        start = int(cursor.removeprefix("c")) if cursor else 0
        page = items[start : start + limit]
        body: dict[str, object] = {"object": "list", "data": page, "has_more": start + limit < n, "total_count": n}
        if start + limit < n:
            body["next_cursor"] = f"c{start + limit}"
        return httpx.Response(200, json=body)

    return items, handler


def test_iterates_every_page() -> None:
    items, handler = paged_server(45)
    c, rec = client(handler)
    got = [cl.id for cl in c.claims.list("proj_x", tier="explore", limit=10)]
    assert got == [i["id"] for i in items]
    assert len(rec.requests) == 5
    assert rec.requests[0].url.params["tier"] == "explore"
    assert "cursor" not in rec.requests[0].url.params
    assert [r.url.params.get("cursor") for r in rec.requests[1:]] == ["c10", "c20", "c30", "c40"]
    assert all(r.url.params["limit"] == "10" for r in rec.requests)


def test_is_lazy() -> None:
    _, handler = paged_server(45)
    c, rec = client(handler)
    it = c.claims.list("proj_x", limit=10)
    assert rec.requests == []
    first = next(iter(it))
    assert first.summary == "c0"
    assert len(rec.requests) == 1


def test_pages_and_first_page() -> None:
    _, handler = paged_server(25)
    c, rec = client(handler)
    pages = list(c.claims.list("proj_x", limit=10).pages())
    assert [len(p.data) for p in pages] == [10, 10, 5]
    assert pages[0].total_count == 25 and pages[-1].next_cursor is None
    fp = c.claims.list("proj_x", limit=10).first_page()
    assert fp.has_more and fp.next_cursor == "c10"
    assert len(c.claims.list("proj_x", limit=10).to_list(max_items=12)) == 12


def test_unset_filters_are_not_sent() -> None:
    _, handler = paged_server(1)
    c, rec = client(handler)
    list(c.claims.list("proj_x"))
    assert dict(rec.requests[0].url.params) == {}


def test_empty_list() -> None:
    _, handler = paged_server(0)
    c, _ = client(handler)
    assert list(c.projects.list()) == []


@pytest.mark.anyio
async def test_async_iteration() -> None:
    items, handler = paged_server(45)
    c, rec = async_client(handler)
    got = [cl.id async for cl in c.claims.list("proj_x", limit=10)]
    assert got == [i["id"] for i in items]
    assert len(rec.requests) == 5
    assert isinstance((await c.claims.list("proj_x").first_page()).data[0], disco.Claim)
    await c.aclose()
