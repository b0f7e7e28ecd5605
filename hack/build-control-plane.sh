#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy (nothing is downloaded from release
# pages) and links them into bin/k8s/. The result is cached per version outside the checkout,
# so only the first build on a machine pays the ~6 minutes.
#
#   hack/build-control-plane.sh            # build (or reuse) and link into ./bin/k8s
#   KUBE_VERSION=v1.36.3 ETCD_VERSION=v3.6.5 hack/build-control-plane.sh
set -euo pipefail

LOG_PREFIX=control-plane
# shellcheck source=hack/lib.sh
. "$(dirname "$0")/lib.sh"

ETCD_VERSION="${ETCD_VERSION:-v3.6.5}"
CACHE_ROOT="$DISCO_CACHE/envtest"
CACHE="$CACHE_ROOT/${KUBE_VERSION}-etcd${ETCD_VERSION}"
OUT="$ROOT/bin/k8s"

build_kube_apiserver() {
  local work="$CACHE_ROOT/src/kube-apiserver-$KUBE_VERSION"
  phase "modules for kube-apiserver"
  kube_module "$work" kube-apiserver-build k8s.io/kubernetes/cmd/kube-apiserver
  phase "compile kube-apiserver $KUBE_VERSION (about 6 minutes on two cores; progress below)"
  go_build_progress kube-apiserver "$work" -ldflags "$(kube_ldflags)" \
    -o "$CACHE/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver
  mv "$CACHE/kube-apiserver.tmp" "$CACHE/kube-apiserver"
}

build_etcd() {
  local work="$CACHE_ROOT/src/etcd-$ETCD_VERSION"
  mkdir -p "$work"
  cat > "$work/go.mod" <<GOMOD
module disco.local/etcd-build

go 1.24

require go.etcd.io/etcd/server/v3 $ETCD_VERSION
GOMOD
  cat > "$work/tools.go" <<'GO'
//go:build tools

package tools

import _ "go.etcd.io/etcd/server/v3"
GO
  phase "modules for etcd $ETCD_VERSION"
  (cd "$work" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true)
  phase "compile etcd $ETCD_VERSION"
  go_build_progress etcd "$work" -ldflags "-s -w" -o "$CACHE/etcd.tmp" go.etcd.io/etcd/server/v3
  mv "$CACHE/etcd.tmp" "$CACHE/etcd"
}

mkdir -p "$CACHE"
exec 9>"$CACHE_ROOT/.lock"
flock 9   # two builds at once (make test and make run in parallel) wait for each other
if [ -x "$CACHE/kube-apiserver" ]; then log "kube-apiserver $KUBE_VERSION cached at $CACHE"; else build_kube_apiserver; fi
if [ -x "$CACHE/etcd" ]; then log "etcd $ETCD_VERSION cached at $CACHE"; else build_etcd; fi
phase_end
mkdir -p "$OUT"
ln -sf "$CACHE/kube-apiserver" "$OUT/kube-apiserver"
ln -sf "$CACHE/etcd" "$OUT/etcd"
log "ready: KUBEBUILDER_ASSETS=$OUT"
