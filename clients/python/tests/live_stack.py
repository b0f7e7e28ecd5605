"""pytest plugin: a session-wide `disco dev` stack for the live tests.

The fixture starts ``<repo>/bin/disco dev --data-dir <tmp> --listen 127.0.0.1:<free port>``,
waits for ``<data-dir>/credentials.json`` and ``GET /readyz`` 200, and stops the stack with
SIGINT at the end of the session. Live tests are skipped (with the reason) when bin/disco
is missing. Set DISCO_LIVE_BASE_URL and DISCO_LIVE_API_KEY to test an already running
stack instead.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
BINARY = Path(os.environ.get("DISCO_BINARY", REPO / "bin" / "disco"))
START_TIMEOUT = float(os.environ.get("DISCO_LIVE_START_TIMEOUT", "240"))


@dataclass
class LiveStack:
    base_url: str
    api_key: str
    tenant_id: str = ""
    data_dir: Path | None = None
    log_path: Path | None = None
    openapi: dict[str, Any] = field(default_factory=dict)

    def has(self, method: str, path: str) -> bool:
        """Whether the facade serves the operation (per its OpenAPI document)."""
        item = self.openapi.get("paths", {}).get(path)
        return isinstance(item, dict) and method.lower() in item

    def require(self, method: str, path: str) -> None:
        if not self.has(method, path):
            pytest.skip(f"the facade does not serve {method.upper()} {path} yet (not in /v1/openapi.json)")

    def log_tail(self, n: int = 60) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _openapi(base_url: str) -> dict[str, Any]:
    try:
        r = httpx.get(base_url + "/openapi.json", timeout=10)
        if r.status_code == 200:
            doc = r.json()
            return doc if isinstance(doc, dict) else {}
    except (httpx.HTTPError, ValueError):
        pass
    return {}


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def live_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveStack]:
    url = os.environ.get("DISCO_LIVE_BASE_URL")
    if url:
        key = os.environ.get("DISCO_LIVE_API_KEY", "")
        if not key:
            pytest.skip("DISCO_LIVE_BASE_URL is set but DISCO_LIVE_API_KEY is not")
        yield LiveStack(base_url=url.rstrip("/"), api_key=key, openapi=_openapi(url.rstrip("/")))
        return
    if not BINARY.exists():
        pytest.skip(f"{BINARY} not found: run `make build` (and `make envtest`) to run the live tests against `disco dev`")

    data_dir = tmp_path_factory.mktemp("disco-dev")
    log_path = data_dir / "disco-dev.log"
    port = _free_port()
    cmd = [str(BINARY), "dev", "--data-dir", str(data_dir), "--listen", f"127.0.0.1:{port}"]
    assets = REPO / "bin" / "k8s"
    if not os.environ.get("KUBEBUILDER_ASSETS") and (assets / "kube-apiserver").exists():
        cmd += ["--assets-dir", str(assets)]
    log = open(log_path, "wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=str(REPO))
    stack = LiveStack(base_url="", api_key="", data_dir=data_dir, log_path=log_path)
    try:
        creds_path = data_dir / "credentials.json"
        deadline = time.monotonic() + START_TIMEOUT
        ready = False
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"`disco dev` exited with {proc.returncode} before it was ready:\n{stack.log_tail()}")
            if creds_path.exists():
                try:
                    creds = json.loads(creds_path.read_text())
                except ValueError:
                    creds = None
                if creds:
                    try:
                        r = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
                        if r.status_code == 200:
                            stack.base_url = str(creds["base_url"]).rstrip("/")
                            stack.api_key = str(creds["api_key"])
                            stack.tenant_id = str(creds.get("tenant_id", ""))
                            ready = True
                            break
                    except httpx.HTTPError:
                        pass
            time.sleep(0.25)
        if not ready:
            pytest.fail(f"`disco dev` was not ready within {START_TIMEOUT:.0f} s:\n{stack.log_tail()}")
        stack.openapi = _openapi(stack.base_url)
        yield stack
    finally:
        _stop(proc)
        log.close()
