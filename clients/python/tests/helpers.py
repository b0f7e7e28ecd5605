"""Helpers for the unit tests: a client over httpx.MockTransport with recorded sleeps."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

import disco

BASE = "http://disco.test/v1"


def envelope(status: int, code: str, message: str = "boom", **details: Any) -> dict[str, Any]:
    return {
        "error": {
            "code": code,
            "message": message,
            "status": status,
            "details": details,
            "request_id": "req_" + "a" * 26,
            "documentation_url": f"{BASE}/docs/errors/{code}",
        }
    }


def error(status: int, code: str, headers: dict[str, str] | None = None, **details: Any) -> httpx.Response:
    return httpx.Response(status, json=envelope(status, code, **details), headers=headers)


class Recorder:
    """Records requests and the sleeps the client asked for."""

    def __init__(self, handler: Callable[[httpx.Request], httpx.Response]) -> None:
        self.handler = handler
        self.requests: list[httpx.Request] = []
        self.bodies: list[bytes] = []
        self.sleeps: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        self.bodies.append(request.content)
        return self.handler(request)

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)

    async def asleep(self, s: float) -> None:
        self.sleeps.append(s)


def client(handler: Callable[[httpx.Request], httpx.Response], **kw: Any) -> tuple[disco.Client, Recorder]:
    rec = Recorder(handler)
    kw.setdefault("api_key", "disco_key_test")
    c = disco.Client(BASE, transport=httpx.MockTransport(rec), **kw)
    c._sleep = rec.sleep
    return c, rec


def async_client(
    handler: Callable[[httpx.Request], httpx.Response], **kw: Any
) -> tuple[disco.AsyncClient, Recorder]:
    rec = Recorder(handler)
    kw.setdefault("api_key", "disco_key_test")
    c = disco.AsyncClient(BASE, transport=httpx.MockTransport(rec), **kw)
    c._sleep = rec.asleep
    return c, rec


def sequence(*responses: httpx.Response | Callable[[httpx.Request], httpx.Response]) -> Callable[[httpx.Request], httpx.Response]:
    """A handler answering with each response in turn (the last one repeats)."""
    items = list(responses)
    state = {"i": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        i = min(state["i"], len(items) - 1)
        state["i"] += 1
        r = items[i]
        return r(request) if callable(r) else r

    return handler


def body_json(request: httpx.Request) -> Any:
    return json.loads(request.content)


PROJECT = {
    "id": "proj_" + "b" * 26,
    "name": "pendulum",
    "description": "",
    "status": "active",
    "settings": {
        "default_mode": "symbolic",
        "governance": {"promotion_ceiling": "validate", "require_negative_controls": True, "truth_dial_threshold": 0.7},
    },
    "created_at": "2025-01-01T00:00:00Z",
    "updated_at": "2025-01-01T00:00:00Z",
    "created_by": "usr_x",
    "tenant_id": "ten_x",
}
