#!/usr/bin/env bash
# make bench-api: REST facade claim reads vs a bare net/http JSON handler (issue 4).
# Starts its own envtest control plane (bin/k8s; `make envtest` builds it) and facade on
# loopback, stores CLAIMS claims, measures, and stops by itself.
#
# Environment (all optional):
#   CLAIMS=1000,100000   claim counts, measured in ascending order
#   DURATION=10s         measured time per target and claim count (split into ROUNDS)
#   ROUNDS=5             interleaved rounds
#   CONC=8               closed-loop client workers
#   CREATE_WORKERS=16    concurrent writers while storing claims
#   OUT_DIR=test/bench/api/results   where the JSON results and the text log go
#   BENCH_API_ARGS=...   extra flags for the program (e.g. -profile-dir /tmp/prof)
set -euo pipefail
cd "$(dirname "$0")/../.."
export KUBEBUILDER_ASSETS="${KUBEBUILDER_ASSETS:-$PWD/bin/k8s}"
if [ ! -x "$KUBEBUILDER_ASSETS/kube-apiserver" ] || [ ! -x "$KUBEBUILDER_ASSETS/etcd" ]; then
	echo "bench-api: no kube-apiserver/etcd in $KUBEBUILDER_ASSETS; run 'make envtest' first" >&2
	exit 2
fi
OUT_DIR="${OUT_DIR:-test/bench/api/results}"
mkdir -p "$OUT_DIR"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
bin="$(mktemp -d)/bench-api"
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./test/bench/api
# shellcheck disable=SC2086
"$bin" -claims "${CLAIMS:-1000,100000}" -duration "${DURATION:-10s}" -rounds "${ROUNDS:-5}" \
	-c "${CONC:-8}" -create-workers "${CREATE_WORKERS:-16}" -out "$OUT_DIR/api-$stamp.json" ${BENCH_API_ARGS:-} \
	2>&1 | tee "$OUT_DIR/api-$stamp.txt"
exit "${PIPESTATUS[0]}"
