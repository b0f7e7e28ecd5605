#!/usr/bin/env bash
# Dynamics benchmark (issue 18 item 1); see test/bench/README.md, "Dynamics".
# Generates the six systems at noise 0, 1 and 5 %, runs engine/dynamics and pysindy on the
# same CSVs, and scores both with the same Go code.
#
# Environment:
#   DYN_OUT   results directory (default test/bench/dynamics/results)
#   DYN_VENV  Python venv for pysindy (default test/bench/dynamics/.venv; created if missing)
#   DYN_REPS  noise draws per system and nonzero noise level (default 5; the first is the main table)
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=test/bench/dynamics
OUT=${DYN_OUT:-$HERE/results}
VENV=${DYN_VENV:-$HERE/.venv}
REPS=${DYN_REPS:-5}
PYSINDY_VERSION=2.1.0
mkdir -p "$OUT"
log() { echo "bench-dynamics: $*" >&2; }

log "generating data in $OUT/data"
rm -rf "$OUT/data"
go run ./$HERE gen -out "$OUT/data" -reps "$REPS"
log "running engine/dynamics"
go run ./$HERE run -data "$OUT/data" -out "$OUT/ours.json" 2>"$OUT/ours.log"

PEERS=()
if [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"; then
  if "$VENV/bin/pip" install -q "pysindy==$PYSINDY_VERSION" >"$OUT/pip.log" 2>&1; then
    "$VENV/bin/pip" freeze >"$OUT/pip-freeze.txt"
    log "running pysindy $PYSINDY_VERSION"
    "$VENV/bin/python" $HERE/pysindy_bench.py "$OUT/data" "$OUT/pysindy.json" 2>"$OUT/pysindy.log"
    PEERS=(-peers "$OUT/pysindy.json")
  else
    log "pysindy $PYSINDY_VERSION could not be installed from PyPI; the pip error follows"
    cat "$OUT/pip.log" >&2
  fi
else
  log "python3 -m venv failed; pysindy skipped"
fi
go run ./$HERE score -data "$OUT/data" -ours "$OUT/ours.json" "${PEERS[@]}" -md "$OUT/report.md"
