#!/usr/bin/env bash
# Tests of the Python client (clients/python): unit tests, live tests against a `disco dev`
# stack started from bin/disco (built by `make build`), and mypy --strict on the package.
# Exits non-zero on any failure, and when no test ran at all.
#   DISCO_REQUIRE_LIVE=1   fail when the live tests were skipped (e.g. bin/disco missing)
#   PYTEST_ARGS="-k ..."   extra pytest arguments
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
pkg=clients/python

# Test this checkout's sources, whatever is installed.
export PYTHONPATH="$PWD/$pkg/src${PYTHONPATH:+:$PYTHONPATH}"
if ! "$PYTHON" -c 'import httpx, pydantic, tqdm, pytest, anyio, mypy' 2>/dev/null; then
  echo "==> installing $pkg[dev]"
  "$PYTHON" -m pip install -q -e "$pkg[dev]"
fi

report=$(mktemp -t disco-pytest-XXXXXX.xml)
trap 'rm -f "$report"' EXIT

echo "==> pytest $pkg/tests"
set +e
# shellcheck disable=SC2086
"$PYTHON" -m pytest -q -rs --junitxml="$report" -o junit_family=xunit2 ${PYTEST_ARGS:-} "$pkg/tests"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "test-python: no tests were collected" >&2
  exit 1
elif [ "$rc" -ne 0 ]; then
  exit "$rc"
fi

"$PYTHON" - "$report" <<'PY'
import os, sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
total = sum(int(s.get("tests", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
failed = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) for s in suites)
ran = total - skipped
live_ran = live_skipped = 0
for case in root.iter("testcase"):
    if ".test_live" not in (case.get("classname") or "") and not (case.get("classname") or "").startswith("test_live"):
        continue
    if case.find("skipped") is not None:
        live_skipped += 1
    else:
        live_ran += 1
print(f"test-python: {ran} ran, {skipped} skipped, {failed} failed; live: {live_ran} ran, {live_skipped} skipped")
if ran == 0 or failed:
    sys.exit("test-python: no test ran" if ran == 0 else "test-python: failures")
if os.environ.get("DISCO_REQUIRE_LIVE") == "1" and live_ran == 0:
    sys.exit("test-python: DISCO_REQUIRE_LIVE=1 but no live test ran")
PY

echo "==> mypy --strict $pkg/src/disco"
(cd "$pkg" && "$PYTHON" -m mypy --strict src/disco)
"$PYTHON" -m pytest -q -rs test/mcp  # the MCP server (apiserver/mcp) through the Python mcp client, live
