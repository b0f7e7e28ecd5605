"""The MCP server (apiserver/mcp) through the Python `mcp` client, over both transports:
streamable HTTP at {base_url}/mcp and stdio (`disco mcp`), against a live `disco dev`.

The HTTP tests skip while the stack does not serve /v1/mcp (404). The stdio tests need the
binary that runs the stack (bin/disco or $DISCO_BINARY).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from contextlib import asynccontextmanager
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

mcp = pytest.importorskip("mcp", reason="the Python `mcp` package is not installed (pip install 'mcp>=1.12,<2')")
from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client import streamable_http  # noqa: E402
from mcp.types import CallToolResult, TextContent  # noqa: E402

from live_stack import BINARY, LiveStack  # noqa: E402

pytestmark = [pytest.mark.live, pytest.mark.anyio]

TOOLS = {
    "list_projects", "get_project", "list_campaigns", "get_campaign", "list_datasets", "get_dataset",
    "get_dataset_profile", "list_runs", "get_run", "submit_run", "get_run_status", "get_run_results",
    "cancel_run", "list_claims", "get_claim", "promote_claim", "demote_claim", "list_ledger",
    "get_ledger_entry", "verify_ledger",
}

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


# REST helpers -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def rest(live_stack: LiveStack) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_stack.base_url, headers={"Authorization": f"Bearer {live_stack.api_key}"}, timeout=30) as c:
        yield c


def _ok(r: httpx.Response) -> Any:
    assert r.status_code < 300, f"{r.request.method} {r.request.url}: {r.status_code} {r.text}"
    return r.json()


@pytest.fixture(scope="module")
def scenario(rest: httpx.Client) -> dict[str, str]:
    """A project whose promotion ceiling is validate, a completed symbolic run over
    y = 3x + 1 and its best claim."""
    project = _ok(rest.post("/projects", json={
        "name": f"mcp-{uuid.uuid4().hex[:8]}", "description": "MCP tests",
        "settings": {"governance": {"promotion_ceiling": "validate", "truth_dial_threshold": 0.5}},
    }))
    pid = project["id"]
    camp = _ok(rest.post(f"/projects/{pid}/campaigns", json={"name": "mcp", "budget": {"compute_units": 100000, "max_runs": 10}}))
    csv = "x,y\n" + "".join(f"{x / 4:.4f},{3 * x / 4 + 1:.4f}\n" for x in range(40))
    ds = _ok(rest.post(f"/projects/{pid}/datasets", files={
        "file": ("line.csv", csv.encode(), "text/csv"),
        "metadata": (None, json.dumps({"name": "line", "format": "csv", "variables": ["x", "y"]}), "application/json"),
    }))
    deadline = time.monotonic() + 120
    while _ok(rest.get(f"/projects/{pid}/datasets/{ds['id']}"))["status"] != "ready":
        assert time.monotonic() < deadline, "the dataset was not profiled within 120 s"
        time.sleep(0.5)
    runs = f"/projects/{pid}/campaigns/{camp['id']}/runs"
    run = _ok(rest.post(runs, json={"mode": "symbolic", "dataset_id": ds["id"], "parameters": {
        "target_variables": ["y"], "constraints": [], "max_complexity": 10, "cross_validate": False}}))
    deadline = time.monotonic() + 180
    while True:
        st = _ok(rest.get(f"{runs}/{run['id']}/status"))
        if st["status"] == "completed":
            break
        assert st["status"] in ("queued", "running"), f"run ended {st}"
        assert time.monotonic() < deadline, f"the run did not complete within 180 s: {st}"
        time.sleep(0.5)
    results = _ok(rest.get(f"{runs}/{run['id']}/results"))
    claim = results["summary"]["best_claim_id"]
    assert claim, results
    return {"project_id": pid, "campaign_id": camp["id"], "dataset_id": ds["id"], "run_id": run["id"], "claim_id": claim}


# MCP sessions -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def mcp_url(live_stack: LiveStack) -> str:
    url = live_stack.base_url + "/mcp"
    r = httpx.post(url, json=INIT, headers={**MCP_HEADERS, "Authorization": f"Bearer {live_stack.api_key}"}, timeout=30)
    if r.status_code == 404:
        pytest.skip(f"the stack does not serve {url} yet (404): /v1/mcp is not mounted in `disco dev`")
    return url


def _stdio_params(live_stack: LiveStack, **env: str) -> StdioServerParameters:
    if live_stack.data_dir is None and not BINARY.exists():
        pytest.skip(f"{BINARY} not found: the stdio tests run `disco mcp` from it")
    base = {k: v for k, v in os.environ.items() if not k.startswith("DISCO_")}
    base.update({"DISCO_API_KEY": live_stack.api_key, "DISCO_BASE_URL": live_stack.base_url})
    base.update(env)
    return StdioServerParameters(command=str(BINARY), args=["mcp"], env=base)


@asynccontextmanager
async def http_session(url: str, api_key: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {api_key}"}
    if hasattr(streamable_http, "streamable_http_client"):  # mcp >= 1.24
        async with httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(30, read=300)) as hc:
            async with streamable_http.streamable_http_client(url, http_client=hc) as (read, write, _):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    yield s
    else:
        async with streamable_http.streamablehttp_client(url, headers=headers) as (read, write, _):
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s


@asynccontextmanager
async def stdio_session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            yield s


@asynccontextmanager
async def session(transport: str, live_stack: LiveStack, request: pytest.FixtureRequest) -> AsyncIterator[ClientSession]:
    if transport == "http":
        url = request.getfixturevalue("mcp_url")
        async with http_session(url, live_stack.api_key) as s:
            yield s
    else:
        async with stdio_session(_stdio_params(live_stack)) as s:
            yield s


def text(res: CallToolResult) -> str:
    return "".join(c.text for c in res.content if isinstance(c, TextContent))


def data(res: CallToolResult) -> Any:
    assert not res.isError, text(res)
    return json.loads(text(res))


TRANSPORTS = pytest.mark.parametrize("transport", ["http", "stdio"])


# Tests ------------------------------------------------------------------------------


@TRANSPORTS
async def test_list_tools(transport: str, live_stack: LiveStack, request: pytest.FixtureRequest) -> None:
    async with session(transport, live_stack, request) as s:
        tools = (await s.list_tools()).tools
    names = {t.name for t in tools}
    assert TOOLS <= names, TOOLS - names
    promote = next(t for t in tools if t.name == "promote_claim")
    assert set(promote.inputSchema["required"]) == {"project_id", "claim_id", "target_tier"}
    assert promote.inputSchema["properties"]["target_tier"]["enum"] == ["explore", "validate", "publish"]


@TRANSPORTS
async def test_project_created_over_rest_is_listed(transport: str, live_stack: LiveStack, rest: httpx.Client, request: pytest.FixtureRequest) -> None:
    name = f"mcp-list-{uuid.uuid4().hex[:8]}"
    created = _ok(rest.post("/projects", json={"name": name, "description": "listed through MCP"}))
    async with session(transport, live_stack, request) as s:
        page = data(await s.call_tool("list_projects", {"limit": 100, "sort": "created_at", "order": "desc"}))
        assert page["object"] == "list"
        assert created["id"] in {p["id"] for p in page["data"]}
        res = await s.call_tool("get_project", {"project_id": created["id"]})
        got = data(res)
        assert got["name"] == name and got["description"] == "listed through MCP"
        assert res.structuredContent and res.structuredContent["id"] == created["id"]
        missing = await s.call_tool("get_project", {"project_id": "proj_" + "z" * 26})
        assert missing.isError and text(missing).startswith("not_found:"), text(missing)


@TRANSPORTS
async def test_refused_promotion_names_the_constraint(transport: str, live_stack: LiveStack, scenario: dict[str, str], request: pytest.FixtureRequest) -> None:
    pid, cid = scenario["project_id"], scenario["claim_id"]
    async with session(transport, live_stack, request) as s:
        claims = data(await s.call_tool("list_claims", {"project_id": pid, "run_id": scenario["run_id"], "limit": 10}))
        assert cid in {c["id"] for c in claims["data"]}
        res = await s.call_tool("promote_claim", {"project_id": pid, "claim_id": cid, "target_tier": "publish", "rationale": "mcp test"})
        assert res.isError, text(res)
        msg = text(res)
        first = msg.splitlines()[0]
        assert first.startswith("governance_policy_violation: "), msg
        assert first.endswith("(constraint: promotion_ceiling_exceeded)"), msg
        assert "publish" in first and "validate" in first, msg
        assert "status: 403" in msg and '"policy_ceiling":"validate"' in msg, msg
        # The refusal left the claim where it was, and was ledgered like any REST refusal.
        claim = data(await s.call_tool("get_claim", {"project_id": pid, "claim_id": cid}))
        assert claim["tier"] in ("explore", "validate")
        ledger = data(await s.call_tool("list_ledger", {"project_id": pid, "claim_id": cid}))
        assert ledger["data"], ledger
        verified = data(await s.call_tool("verify_ledger", {"project_id": pid}))
        assert verified["valid"] is True, verified


async def test_run_tools_over_stdio(live_stack: LiveStack, scenario: dict[str, str]) -> None:
    ref = {k: scenario[k] for k in ("project_id", "campaign_id", "run_id")}
    async with stdio_session(_stdio_params(live_stack)) as s:
        assert data(await s.call_tool("get_run_status", ref))["status"] == "completed"
        results = data(await s.call_tool("get_run_results", ref))
        assert results["summary"]["best_claim_id"] == scenario["claim_id"]
        runs = data(await s.call_tool("list_runs", {k: scenario[k] for k in ("project_id", "campaign_id")}))
        assert scenario["run_id"] in {r["id"] for r in runs["data"]}
        ds = data(await s.call_tool("get_dataset", {"project_id": scenario["project_id"], "dataset_id": scenario["dataset_id"]}))
        assert ds["status"] == "ready"


async def test_http_without_credentials_is_401(live_stack: LiveStack, mcp_url: str) -> None:
    for msg in (INIT, TOOLS_LIST):
        r = httpx.post(mcp_url, json=msg, headers=MCP_HEADERS, timeout=30)
        assert r.status_code == 401, r.text
        assert r.headers.get("WWW-Authenticate", "").startswith("Bearer")
        err = r.json()["error"]
        assert err["code"] == "unauthenticated" and err["status"] == 401
        assert err["message"] and isinstance(err["details"], dict)
        assert err["request_id"].startswith("req_") and err["documentation_url"]


async def test_http_with_a_bad_credential_is_401(live_stack: LiveStack, mcp_url: str) -> None:
    # Every MCP request, initialize and tools/list included, is authenticated as a REST
    # request is (issue 17): a credential the REST API refuses never opens a session.
    headers = {**MCP_HEADERS, "Authorization": "Bearer disco_key_" + "a" * 40}
    for msg in (INIT, TOOLS_LIST):
        r = httpx.post(mcp_url, json=msg, headers=headers, timeout=30)
        assert r.status_code == 401, r.text
        err = r.json()["error"]
        assert err["code"] == "unauthenticated" and err["details"].get("reason") in ("malformed", "invalid"), err


def test_stdio_without_credentials_exits_non_zero(live_stack: LiveStack) -> None:
    params = _stdio_params(live_stack)
    env = {k: v for k, v in (params.env or {}).items() if k != "DISCO_API_KEY"}
    p = subprocess.run([str(BINARY), "mcp"], env=env, input=b"", capture_output=True, timeout=30)
    assert p.returncode != 0
    assert b"DISCO_API_KEY" in p.stderr, p.stderr
