#!/usr/bin/env bash
# Engine benchmark (make bench-engine). See test/bench/README.md.
#
# Environment:
#   BENCH_SET          Feynman table: 100 (the whole AI Feynman database) or 50 (its first
#                      half, the table before issue 18); default 100
#   BENCH_N            Feynman equations, spread over the table (0 = all; default 0)
#   BENCH_EQUATIONS    comma-separated equation names instead of BENCH_N
#   BENCH_NOISE        noise levels, fractions of RMS(y) (default 0,0.01,0.1)
#   BENCH_TIME_LIMIT   seconds per equation and noise level, for ours and each peer (default 60)
#   BENCH_PEER_TIME_LIMIT  seconds per case for each peer instead (default BENCH_TIME_LIMIT), or
#                      "match": each case gets the wall time the engine took on it; the
#                      report prints every method's mean wall time next to the rates
#   BENCH_CALIB_SEEDS  calibration seeds (default 20)
#   BENCH_PARTS        what the engine runs (default feynman,sem,sachs,conservation,calibration)
#   BENCH_PEERS        symbolic-regression peers (default pyoperon,gplearn; empty to skip)
#   BENCH_OUT          results directory (default test/bench/results)
#   BENCH_VENV         Python venv for the peers (default ~/.cache/disco/benchvenv)
set -uo pipefail
cd "$(dirname "$0")/../.."
SET=${BENCH_SET:-100}
N=${BENCH_N:-0}
NOISE=${BENCH_NOISE:-0,0.01,0.1}
EQS=${BENCH_EQUATIONS:-}
T=${BENCH_TIME_LIMIT:-60}
TP=${BENCH_PEER_TIME_LIMIT:-$T}
CAL=${BENCH_CALIB_SEEDS:-20}
PARTS=${BENCH_PARTS:-feynman,sem,sachs,conservation,calibration}
PEERS=${BENCH_PEERS-pyoperon,gplearn}
OUT=${BENCH_OUT:-test/bench/results}
VENV=${BENCH_VENV:-$HOME/.cache/disco/benchvenv}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
CASES="$OUT/cases"
log() { echo "bench-engine: $*" >&2; }

# --- Python peers: create or reuse the venv; a package that fails is reported and skipped.
PY=""
if [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV" >/dev/null 2>&1; then
  PY="$VENV/bin/python"
  "$PY" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  for pkg in numpy pandas sympy scikit-learn pyoperon gplearn causal-learn; do
    mod=$pkg
    case $pkg in scikit-learn) mod=sklearn ;; causal-learn) mod=causallearn ;; esac
    if ! "$PY" -c "import $mod" >/dev/null 2>&1; then
      log "installing $pkg into $VENV"
      "$PY" -m pip install -q "$pkg" >/dev/null 2>&1 || log "could not install $pkg; continuing without it"
    fi
  done
  "$PY" -c "import numpy, pandas" >/dev/null 2>&1 || { log "numpy/pandas unavailable: no peers, no report"; PY=""; }
else
  log "cannot create a venv at $VENV: running the engine only"
fi

BIN="$OUT/enginebench"
go build -o "$BIN" ./test/bench/cmd/enginebench || exit 1
GENARGS=(-out "$CASES" -set "$SET" -n "$N" -noise "$NOISE")
[ -n "$EQS" ] && GENARGS+=(-equations "$EQS")
"$BIN" gen "${GENARGS[@]}" || exit 1

PCARG=()
if [ -n "$PY" ] && [[ ",$PARTS," == *,sem,* || ",$PARTS," == *,sachs,* ]]; then
  if "$PY" -c "import causallearn" >/dev/null 2>&1; then
    log "causal-learn PC"
    "$PY" test/bench/peers/pc_causallearn.py --cases "$CASES" --out "$OUT/pc.json" && PCARG=(-pc "$OUT/pc.json")
  else
    log "causal-learn unavailable: causal comparison without the peer"
  fi
fi

log "engine (time limit ${T}s per Feynman case)"
"$BIN" run -cases "$CASES" -out "$OUT/ours.json" -time-limit "${T}s" -calib-seeds "$CAL" -parts "$PARTS" "${PCARG[@]}" || exit 1

PEERARG=()
if [ -n "$PY" ] && [ -n "$PEERS" ] && [[ ",$PARTS," == *,feynman,* ]]; then
  TIMEARG=(--time-limit "$TP")
  if [ "$TP" = match ]; then
    log "symbolic-regression peers: $PEERS (each case: the engine's wall time on it)"
    TIMEARG=(--match-wall "$OUT/ours.json")
  else
    log "symbolic-regression peers: $PEERS (${TP}s each)"
  fi
  "$PY" test/bench/peers/sr_peers.py --cases "$CASES" --out "$OUT/peers_sr.json" "${TIMEARG[@]}" --peers "$PEERS" \
    && PEERARG=(--peers "$OUT/peers_sr.json")
fi

if [ -n "$PY" ]; then
  "$PY" test/bench/peers/report.py --cases "$CASES" --ours "$OUT/ours.json" "${PEERARG[@]}" \
    --out "$OUT/scored.json" --md "$OUT/report.md"
else
  log "no Python: raw results in $OUT/ours.json"
fi
