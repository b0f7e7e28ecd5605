#!/usr/bin/env bash
# Builds the node and cluster tools (kubelet, kube-controller-manager, kube-scheduler,
# kube-proxy, kubectl) from k8s.io/kubernetes on the Go module proxy, in one `go build` so the
# packages they share are compiled once, caches them per version outside the checkout and links
# them into bin/k8s/.
# Installs containerd, runc and the CNI plugins from Debian's packages when they are missing
# (issue 13, item 1).
#
#   hack/build-node.sh                     # build (or reuse), link, install packages
#   KUBE_VERSION=v1.36.3 hack/build-node.sh
#   SKIP_PACKAGES=1 hack/build-node.sh     # binaries only
set -euo pipefail

LOG_PREFIX=node
# shellcheck source=hack/lib.sh
. "$(dirname "$0")/lib.sh"

CACHE_ROOT="$DISCO_CACHE/node"
CACHE="$CACHE_ROOT/$KUBE_VERSION"
OUT="$ROOT/bin/k8s"
# kube-proxy gives pods the Service virtual IPs (the kubernetes Service included).
COMPONENTS=(kubelet kube-controller-manager kube-scheduler kube-proxy kubectl)

missing_components() {
  local c
  for c in "${COMPONENTS[@]}"; do [ -x "$CACHE/$c" ] || echo "$c"; done
}

# build_components C...: compiles the named components in one `go build`.
build_components() {
  local work="$CACHE_ROOT/src/kubernetes-$KUBE_VERSION" pkgs=() all=() c
  for c in "${COMPONENTS[@]}"; do all+=("k8s.io/kubernetes/cmd/$c"); done
  for c in "$@"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  phase "modules for ${COMPONENTS[*]}"
  kube_module "$work" node-build "${all[@]}"
  phase "compile $* $KUBE_VERSION (one go build; progress below)"
  rm -rf "$CACHE/.tmp" && mkdir -p "$CACHE/.tmp"
  # -o DIR/ with several main packages writes one binary per package, named after it.
  go_build_progress node "$work" -ldflags "$(kube_ldflags)" -o "$CACHE/.tmp/" "${pkgs[@]}"
  for c in "$@"; do mv "$CACHE/.tmp/$c" "$CACHE/$c"; done
  rm -rf "$CACHE/.tmp"
}

# The node's runtime comes from Debian's packages: containerd (CRI), runc (OCI runtime) and
# containernetworking-plugins (bridge, host-local, loopback, portmap under /usr/lib/cni).
install_packages() {
  local need=()
  command -v containerd >/dev/null 2>&1 || need+=(containerd)
  command -v runc >/dev/null 2>&1 || need+=(runc)
  [ -x "$(cni_bin_dir)/bridge" ] || need+=(containernetworking-plugins)
  command -v conntrack >/dev/null 2>&1 || need+=(conntrack)
  command -v iptables >/dev/null 2>&1 || need+=(iptables)
  if [ "${#need[@]}" -eq 0 ]; then
    log "containerd, runc and the CNI plugins are installed"
    return
  fi
  phase "Debian packages: ${need[*]}"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

mkdir -p "$CACHE"
exec 9>"$CACHE_ROOT/.lock"
flock 9   # two builds at once wait for each other
mapfile -t missing < <(missing_components)
if [ "${#missing[@]}" -eq 0 ]; then
  log "${COMPONENTS[*]} $KUBE_VERSION cached at $CACHE"
else
  build_components "${missing[@]}"
fi
mkdir -p "$OUT"
for c in "${COMPONENTS[@]}"; do ln -sf "$CACHE/$c" "$OUT/$c"; done
if [ "${SKIP_PACKAGES:-}" != 1 ]; then install_packages; fi
phase_end
log "ready: ${COMPONENTS[*]} in $OUT"
