#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy (nothing is downloaded from release
# pages) and links them into bin/k8s/. The result is cached per version outside the checkout,
# so only the first build on a machine pays the ~6 minutes.
#
#   hack/build-control-plane.sh            # build (or reuse) and link into ./bin/k8s
#   KUBE_VERSION=v1.36.3 ETCD_VERSION=v3.6.5 hack/build-control-plane.sh
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.5}"
CACHE_ROOT="${DISCO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/disco}/envtest"
CACHE="$CACHE_ROOT/${KUBE_VERSION}-etcd${ETCD_VERSION}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/bin/k8s"

log() { printf '[control-plane] %s\n' "$*" >&2; }

# Staging version: k8s.io/kubernetes v1.X.Y pairs with k8s.io/<staging> v0.X.Y.
STAGING_VERSION="v0.${KUBE_VERSION#v1.}"

build_kube_apiserver() {
  local work="$CACHE_ROOT/src/kube-apiserver-$KUBE_VERSION"
  mkdir -p "$work"
  log "resolving k8s.io/kubernetes $KUBE_VERSION from the module proxy"
  local gomod
  gomod="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  [ -f "$gomod" ] || { log "could not download k8s.io/kubernetes@$KUBE_VERSION"; exit 1; }
  local goversion
  goversion="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$gomod" | head -1)"
  {
    echo "module disco.local/kube-apiserver-build"
    echo
    echo "go $goversion"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    # Every staging module that kubernetes replaces with ./staging/... is taken from the proxy.
    grep -E '=> \./staging/' "$gomod" | awk -v v="$STAGING_VERSION" '{print "replace " $1 " => " $1 " " v}'
  } > "$work/go.mod"
  cat > "$work/tools.go" <<'GO'
//go:build tools

package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
GO
  log "downloading modules for kube-apiserver (first time only)"
  (cd "$work" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true)
  (cd "$work" && GOFLAGS=-mod=mod go mod download)
  log "compiling kube-apiserver $KUBE_VERSION (about 6 minutes on two cores; progress below)"
  (cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -v -trimpath \
      -ldflags "-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)" \
      -o "$CACHE/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver 2>&1 \
      | awk '{n++; if (n % 50 == 0) printf "[control-plane] kube-apiserver: %d packages compiled (last: %s)\n", n, $0 > "/dev/stderr"}')
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
  log "downloading modules for etcd $ETCD_VERSION"
  (cd "$work" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true)
  log "compiling etcd $ETCD_VERSION"
  (cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$CACHE/etcd.tmp" go.etcd.io/etcd/server/v3)
  mv "$CACHE/etcd.tmp" "$CACHE/etcd"
}

mkdir -p "$CACHE"
exec 9>"$CACHE_ROOT/.lock"
flock 9   # two builds at once (make test and make run in parallel) wait for each other
if [ -x "$CACHE/kube-apiserver" ]; then log "kube-apiserver $KUBE_VERSION cached at $CACHE"; else build_kube_apiserver; fi
if [ -x "$CACHE/etcd" ]; then log "etcd $ETCD_VERSION cached at $CACHE"; else build_etcd; fi
mkdir -p "$OUT"
ln -sf "$CACHE/kube-apiserver" "$OUT/kube-apiserver"
ln -sf "$CACHE/etcd" "$OUT/etcd"
log "ready: KUBEBUILDER_ASSETS=$OUT"
