# Shared by the hack/build-*.sh scripts and hack/cluster.sh (sourced, not run). The build
# scripts build Kubernetes binaries from the Go module proxy, because nothing can be downloaded
# from release pages (DESIGN.md, "Control plane binaries without downloads"), and cache the
# results per version outside the checkout.
#
# The caller sets LOG_PREFIX before sourcing; KUBE_VERSION defaults to the Makefile's.

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
DISCO_CACHE="${DISCO_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/disco}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Staging version: k8s.io/kubernetes v1.X.Y pairs with k8s.io/<staging> v0.X.Y.
STAGING_VERSION="v0.${KUBE_VERSION#v1.}"

log() { printf '[%s] %s\n' "${LOG_PREFIX:-hack}" "$*" >&2; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# cni_bin_dir: where the CNI plugins are: /usr/lib/cni from Debian's containernetworking-plugins,
# else the upstream default /opt/cni/bin.
cni_bin_dir() { if [ -x /usr/lib/cni/bridge ]; then echo /usr/lib/cni; else echo /opt/cni/bin; fi; }

# phase NAME: starts timing a phase; phase_end prints how long the current phase took.
_phase_name=""
_phase_start=0
phase() {
  phase_end
  _phase_name="$1"
  _phase_start=$(date +%s)
  log "phase: $1"
}
phase_end() {
  if [ -n "$_phase_name" ]; then
    log "phase done in $(( $(date +%s) - _phase_start ))s: $_phase_name"
    _phase_name=""
  fi
}

# kube_ldflags: the version stamps Kubernetes' own build sets (hack/lib/version.sh upstream),
# so `kubectl version` and the node's kubeletVersion report KUBE_VERSION.
kube_ldflags() {
  local minor pkg flags="-s -w"
  minor="$(echo "$KUBE_VERSION" | cut -d. -f2)"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags="$flags -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "$flags"
}

# kube_module WORKDIR NAME PKG...: writes a Go module in WORKDIR that requires k8s.io/kubernetes
# at KUBE_VERSION, takes every staging module that kubernetes replaces with ./staging/... from
# the proxy, and imports PKG... so `go mod tidy` records their dependencies.
kube_module() {
  local work="$1" name="$2"
  shift 2
  mkdir -p "$work"
  log "resolving k8s.io/kubernetes $KUBE_VERSION from the module proxy"
  local gomod
  gomod="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  [ -f "$gomod" ] || { log "could not download k8s.io/kubernetes@$KUBE_VERSION"; exit 1; }
  local goversion
  goversion="$(sed -n 's/^go \([0-9.]*\).*/\1/p' "$gomod" | head -1)"
  {
    echo "module disco.local/$name"
    echo
    echo "go $goversion"
    echo
    echo "require k8s.io/kubernetes $KUBE_VERSION"
    echo
    grep -E '=> \./staging/' "$gomod" | awk -v v="$STAGING_VERSION" '{print "replace " $1 " => " $1 " " v}'
  } > "$work/go.mod"
  {
    echo "//go:build tools"
    echo
    echo "package tools"
    echo
    local pkg
    for pkg in "$@"; do echo "import _ \"$pkg\""; done
  } > "$work/tools.go"
  log "downloading modules for $name (first time only)"
  (cd "$work" && GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true)
  (cd "$work" && GOFLAGS=-mod=mod go mod download)
}

# go_build_progress LABEL WORKDIR GO-BUILD-ARGS...: a static, trimmed `go build -v` in WORKDIR
# that prints a line every 50 compiled packages instead of thousands of names.
go_build_progress() {
  local label="$1" work="$2"
  shift 2
  (cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -v -trimpath "$@" 2>&1) |
    awk -v p="${LOG_PREFIX:-hack}" -v l="$label" '
      /^(#|go: |.*\.go:[0-9]+)/ { print > "/dev/stderr"; next }
      { n++; if (n % 50 == 0) printf "[%s] %s: %d packages compiled (last: %s)\n", p, l, n, $0 > "/dev/stderr" }
      END { printf "[%s] %s: %d packages compiled\n", p, l, n > "/dev/stderr" }'
}
