"""MCP tests against a live `disco dev` stack.

The session-wide stack fixture is the Python client's (clients/python/tests/live_stack.py):
it starts ``bin/disco dev`` (or $DISCO_BINARY), or uses DISCO_LIVE_BASE_URL and
DISCO_LIVE_API_KEY, and skips with the reason when neither is available.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python" / "tests"))

pytest_plugins = ["live_stack"]

import pytest  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "live: needs a running `disco dev` stack (started by the session fixture)")
