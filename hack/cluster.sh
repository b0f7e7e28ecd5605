#!/usr/bin/env bash
# A single-node Kubernetes cluster from the binaries hack/ builds and Debian's containerd, runc
# and CNI plugins, with all of its state under one data dir (issue 13, item 3):
# etcd, kube-apiserver (with the front-proxy certificates the aggregation layer needs),
# kube-controller-manager, kube-scheduler, containerd, kubelet and kube-proxy.
#
#   hack/cluster.sh up      # start what is not running; reuses the state of an earlier up
#   hack/cluster.sh down    # stop everything; no processes, mounts or interfaces are left
#   hack/cluster.sh status
#   hack/cluster.sh install # install disco from config/overlays/local (up ends with it)
#
# Both are idempotent, and `up` restarts a component that died (kill -9 included). Needs root
# (containerd, kubelet). Environment: CLUSTER_DIR (default .cluster), PAUSE_IMG, IMAGE_DIR.
set -euo pipefail

LOG_PREFIX=cluster
# shellcheck source=hack/lib.sh
. "$(dirname "$0")/lib.sh"

# The data dir with symlinks resolved, so every path that names it is spelt the same.
D="$(mkdir -p "${CLUSTER_DIR:-$ROOT/.cluster}" && cd "${CLUSTER_DIR:-$ROOT/.cluster}" && pwd -P)"
BIN="$ROOT/bin/k8s"
IMAGE_DIR="${IMAGE_DIR:-$ROOT/bin/image}"
PAUSE_IMG="${PAUSE_IMG:-disco.local/pause:dev}"
NODE_NAME="${NODE_NAME:-disco-node}"
POD_CIDR="10.244.0.0/24"
SERVICE_CIDR="10.96.0.0/16"
KUBERNETES_SVC_IP="10.96.0.1"
BRIDGE="disco0"
ETCD_PORT=12379
API_PORT=6443
SOCK="$D/containerd/containerd.sock"
PKI="$D/pki"
KUBECONFIG_ADMIN="$D/kubeconfig"

ctr_() { ctr --address "$SOCK" --namespace k8s.io "$@"; }
kubectl_() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }

# The node's address: the source address of the default route. Pods reach the API server
# there (the kubernetes Service's endpoint), and the API server reaches the kubelet.
node_ip() {
  local ip
  ip="$(ip -4 route get 1.1.1.1 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p' | head -1)"
  [ -n "$ip" ] || ip="$(ip -4 -o addr show scope global | awk '{sub(/\/.*/, "", $4); print $4; exit}')"
  [ -n "$ip" ] || { log "no global IPv4 address on this machine: the pods need one to reach the API server"; exit 1; }
  echo "$ip"
}

# --- certificates -----------------------------------------------------------------------------

# ca NAME CN: a self-signed CA, kept once made.
ca() {
  [ -f "$PKI/$1.crt" ] && return
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
    -keyout "$PKI/$1.key" -out "$PKI/$1.crt" -subj "/CN=$2" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
}

# cert CA NAME SUBJECT USAGE [SANS]: a key and a certificate signed by CA, kept once made.
cert() {
  local ca="$1" name="$2" subj="$3" usage="$4" sans="${5:-}"
  [ -f "$PKI/$name.crt" ] && return
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$PKI/$name.key" -out "$PKI/$name.csr" -subj "$subj" 2>/dev/null
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -z "$sans" ] || echo "subjectAltName=$sans"
  } > "$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/$ca.crt" -CAkey "$PKI/$ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -days 3650 -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
  rm -f "$PKI/$name.csr" "$PKI/$name.ext"
}

certificates() {
  local ip="$1"
  mkdir -p "$PKI" && chmod 700 "$PKI"
  ca ca disco-cluster-ca
  ca front-proxy-ca disco-front-proxy-ca
  # A changed node address needs new serving certificates.
  if [ -f "$PKI/apiserver.crt" ] && ! openssl x509 -in "$PKI/apiserver.crt" -noout -ext subjectAltName 2>/dev/null | grep -q "IP Address:$ip\b"; then
    rm -f "$PKI/apiserver.crt" "$PKI/kubelet-serving.crt"
  fi
  cert ca apiserver "/CN=kube-apiserver" serverAuth \
    "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:$KUBERNETES_SVC_IP,IP:$ip"
  cert ca kubelet-serving "/CN=$NODE_NAME" serverAuth "DNS:$NODE_NAME,DNS:localhost,IP:127.0.0.1,IP:$ip"
  cert ca apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  cert front-proxy-ca front-proxy-client "/CN=front-proxy-client" clientAuth
  cert ca admin "/O=system:masters/CN=disco-admin" clientAuth
  cert ca controller-manager "/CN=system:kube-controller-manager" clientAuth
  cert ca scheduler "/CN=system:kube-scheduler" clientAuth
  cert ca kubelet "/O=system:nodes/CN=system:node:$NODE_NAME" clientAuth
  cert ca kube-proxy "/CN=system:kube-proxy" clientAuth
  if [ ! -f "$PKI/sa.key" ]; then
    openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$PKI/sa.key"
    openssl ec -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  fi
  chmod 600 "$PKI"/*.key
}

# put FILE: writes stdin to FILE only when it differs, so components that watch their
# configuration (kube-proxy exits when its file changes) keep running across `up`s.
put() {
  local tmp
  tmp="$(mktemp "$1.XXXXXX")"
  cat > "$tmp"
  if cmp -s "$tmp" "$1"; then rm -f "$tmp"; else chmod 644 "$tmp" && mv "$tmp" "$1"; fi
}

# kubeconfig FILE USER: a kubeconfig for USER's client certificate.
kubeconfig() {
  put "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: disco
  cluster:
    certificate-authority: $PKI/ca.crt
    server: https://127.0.0.1:$API_PORT
users:
- name: $2
  user:
    client-certificate: $PKI/$2.crt
    client-key: $PKI/$2.key
contexts:
- name: disco
  context: {cluster: disco, user: $2}
current-context: disco
EOF
}

# --- processes ----------------------------------------------------------------------------------

# The components, in the order up starts them.
COMPONENTS=(etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy)

pidfile() { echo "$D/run/$1.pid"; }

# binary NAME: component NAME's executable: the machine's containerd (Debian's package), or
# the one hack/ built into bin/k8s.
binary() { if [ "$1" = containerd ]; then echo containerd; else echo "$BIN/$1"; fi; }

# running NAME: the pid recorded for NAME is alive and is this data dir's NAME: its executable,
# as the kernel resolves it (/proc/PID/exe, proc(5)), is named NAME (as binary's are), and an
# argument is a path in $D once symlinks are resolved (start passes each as its own argument).
# Where the binary lies is not compared, so a cluster brought up from another checkout,
# through a symlink to the data dir, or with its binaries rebuilt since (" (deleted)") is
# still found and stopped; a reused pid (envtest runs the same etcd and kube-apiserver) is not
# taken for the cluster's.
running() {
  local pid exe arg
  local -a paths=()
  pid="$(cat "$(pidfile "$1")" 2>/dev/null)" || return 1
  [ -n "$pid" ] && exe="$(readlink "/proc/$pid/exe" 2>/dev/null)" || return 1
  exe="${exe% (deleted)}"
  [ "${exe##*/}" = "$1" ] || return 1
  while IFS= read -r -d '' arg; do [[ "$arg" != /* ]] || paths+=("$arg"); done 2>/dev/null < "/proc/$pid/cmdline"
  [ "${#paths[@]}" -gt 0 ] || return 1
  while IFS= read -r arg; do [[ "$arg" != "$D/"* ]] || return 0; done < <(realpath -m -- "${paths[@]}")
  return 1
}

# start NAME ARGS...: starts NAME's binary detached, logging to logs/NAME.log, unless running.
start() {
  local name="$1"
  shift
  if running "$name"; then
    log "$name is running (pid $(cat "$(pidfile "$name")"))"
    return
  fi
  log "starting $name"
  echo "=== $(date -u +%FT%TZ) start" >> "$D/logs/$name.log"
  setsid "$(binary "$name")" "$@" >> "$D/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$(pidfile "$name")"
}

# stop NAME: SIGTERM, then SIGKILL after 20 s.
stop() {
  local name="$1" pid i
  running "$name" || { rm -f "$(pidfile "$name")"; return 0; }
  pid="$(cat "$(pidfile "$name")")"
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$(pidfile "$name")"
}

# wait_for WHAT SECONDS CMD...: polls CMD every half second for SECONDS; on timeout, when
# WHAT is a component, shows the end of its log.
wait_for() {
  local what="$1" secs="$2"
  local end=$((SECONDS + secs))
  shift 2
  while [ "$SECONDS" -lt "$end" ]; do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  log "$what is not ready after ${secs}s"
  if [ -f "$D/logs/$what.log" ]; then
    log "last lines of $D/logs/$what.log:"
    tail -20 "$D/logs/$what.log" >&2 || true
  fi
  exit 1
}

# start_containerd: the cluster's containerd, answering on its socket.
start_containerd() {
  start containerd --config "$D/containerd/config.toml"
  wait_for containerd 60 ctr_ version
}

api_ready() { curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" "https://127.0.0.1:$API_PORT/readyz" >/dev/null; }

# --- configuration ------------------------------------------------------------------------------

write_configs() {
  local ip="$1"
  mkdir -p "$D/containerd" "$D/cni/net.d" "$D/cni/ipam" "$D/kubelet" "$D/kube-proxy" "$D/kubeconfigs"
  kubeconfig "$KUBECONFIG_ADMIN" admin
  local c
  for c in controller-manager scheduler kubelet kube-proxy; do kubeconfig "$D/kubeconfigs/$c" "$c"; done
  chmod 600 "$KUBECONFIG_ADMIN" "$D"/kubeconfigs/*

  # containerd with its own root, state and socket, so it neither touches nor depends on a
  # containerd the machine may run; the sandbox image is the one `make image` builds.
  put "$D/containerd/config.toml" <<EOF
version = 2
root = "$D/containerd/root"
state = "$D/containerd/state"
[grpc]
  address = "$SOCK"
[ttrpc]
  address = "$SOCK.ttrpc"
[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "$PAUSE_IMG"
    netns_mounts_under_state_dir = true
    restrict_oom_score_adj = $(restrict_oom)
    [plugins."io.containerd.grpc.v1.cri".containerd]
      snapshotter = "overlayfs"
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = false
          Root = "$D/containerd/runc"
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "$(cni_bin_dir)"
      conf_dir = "$D/cni/net.d"
  [plugins."io.containerd.internal.v1.opt"]
    path = "$D/containerd/opt"
EOF

  # One bridge for the pods, addresses from host-local IPAM kept under the data dir.
  put "$D/cni/net.d/10-disco.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "disco",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "ranges": [[{"subnet": "$POD_CIDR"}]],
        "routes": [{"dst": "0.0.0.0/0"}],
        "dataDir": "$D/cni/ipam"
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF

  # kubelet 1.35+ refuses cgroup v1 unless failCgroupV1 is false; this machine kind has cgroup
  # v1 hierarchies (issue 13).
  # imageGCHighThresholdPercent 100 turns image garbage collection off: the images are
  # imported, not pulled, and nothing could pull them back. On a shared disk above 85 %
  # the kubelet otherwise deletes the idle sandbox (pause) image, and every later pod waits
  # in ContainerCreating ("failed to pull disco.local/pause"). Eviction thresholds still
  # guard the disk.
  put "$D/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://$SOCK
address: $ip
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: $PKI/kubelet-serving.crt
tlsPrivateKeyFile: $PKI/kubelet-serving.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $PKI/ca.crt}
authorization: {mode: Webhook}
clusterDomain: cluster.local
failSwapOn: false
resolvConf: /etc/resolv.conf
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: 2%
  imagefs.available: 2%
  nodefs.inodesFree: 2%
EOF

  put "$D/kube-proxy/config.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: $D/kubeconfigs/kube-proxy
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $POD_CIDR
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
conntrack:
  maxPerCore: 0
EOF
}

# restrict_oom: without CAP_SYS_RESOURCE (capabilities(7)) no process may lower its
# oom_score_adj, and runc fails to start a pod whose spec asks for it; containerd then keeps
# every container's score at or above its own.
restrict_oom() {
  local eff
  eff="$(awk '/^CapEff:/ {print $2}' /proc/self/status)"
  if (( (0x$eff >> 24) & 1 )); then echo false; else echo true; fi
}

# --- up and down -------------------------------------------------------------------------------

preflight() {
  [ "$(id -u)" = 0 ] || { log "run as root: containerd and the kubelet need it (sudo make cluster-up)"; exit 1; }
  local b
  for b in etcd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
    [ -x "$BIN/$b" ] || { log "$BIN/$b is missing: run make envtest node"; exit 1; }
  done
  for b in containerd runc ctr iptables conntrack openssl curl; do
    command -v "$b" >/dev/null || { log "$b is missing: run make node"; exit 1; }
  done
  [ -x "$(cni_bin_dir)/bridge" ] || { log "the CNI plugins are missing: run make node"; exit 1; }
  for b in pause disco; do
    [ -f "$IMAGE_DIR/$b.oci.tar" ] || { log "$IMAGE_DIR/$b.oci.tar is missing: run make image"; exit 1; }
  done
  # Service traffic between pods on one bridge passes iptables only with br_netfilter.
  modprobe br_netfilter 2>/dev/null || true
  [ "$(cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)" = 1 ] ||
    sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || log "warning: br_netfilter is not available"
  [ "$(cat /proc/sys/net/ipv4/ip_forward)" = 1 ] || sysctl -qw net.ipv4.ip_forward=1
}

up() {
  local ip
  phase "preflight"
  preflight
  ip="$(node_ip)"
  mkdir -p "$D/run" "$D/logs"
  phase "certificates and configuration (node $NODE_NAME at $ip)"
  certificates "$ip"
  write_configs "$ip"

  phase "etcd"
  start etcd --name disco --data-dir "$D/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 1))" \
    --initial-cluster "disco=http://127.0.0.1:$((ETCD_PORT + 1))" --listen-metrics-urls "http://127.0.0.1:$((ETCD_PORT + 2))"
  wait_for etcd 60 curl -sf "http://127.0.0.1:$ETCD_PORT/health"

  phase "containerd"
  start_containerd
  phase "images"
  local img
  for img in pause disco; do ctr_ images import "$IMAGE_DIR/$img.oci.tar" >/dev/null; done
  ctr_ images ls -q | grep -v '^sha256:' | sed 's/^/[cluster]   /' >&2

  phase "kube-apiserver"
  start kube-apiserver \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
    --bind-address 0.0.0.0 --secure-port "$API_PORT" --advertise-address "$ip" \
    --service-cluster-ip-range "$SERVICE_CIDR" \
    --client-ca-file "$PKI/ca.crt" --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" --kubelet-client-key "$PKI/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --allow-privileged=true \
    --requestheader-client-ca-file "$PKI/front-proxy-ca.crt" --requestheader-allowed-names front-proxy-client \
    --requestheader-username-headers X-Remote-User --requestheader-group-headers X-Remote-Group \
    --requestheader-extra-headers-prefix X-Remote-Extra- \
    --proxy-client-cert-file "$PKI/front-proxy-client.crt" --proxy-client-key-file "$PKI/front-proxy-client.key" \
    --enable-aggregator-routing=true --profiling=false
  wait_for kube-apiserver 180 api_ready

  phase "kube-controller-manager, kube-scheduler"
  start kube-controller-manager \
    --kubeconfig "$D/kubeconfigs/controller-manager" \
    --authentication-kubeconfig "$D/kubeconfigs/controller-manager" --authorization-kubeconfig "$D/kubeconfigs/controller-manager" \
    --bind-address 127.0.0.1 --leader-elect=false --cluster-name disco \
    --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
    --root-ca-file "$PKI/ca.crt" --service-account-private-key-file "$PKI/sa.key" --use-service-account-credentials=true \
    --service-cluster-ip-range "$SERVICE_CIDR" --controllers '*,bootstrapsigner,tokencleaner' --profiling=false
  start kube-scheduler \
    --kubeconfig "$D/kubeconfigs/scheduler" \
    --authentication-kubeconfig "$D/kubeconfigs/scheduler" --authorization-kubeconfig "$D/kubeconfigs/scheduler" \
    --bind-address 127.0.0.1 --leader-elect=false --profiling=false

  phase "kubelet, kube-proxy"
  mkdir -p "$D/kubelet/root"
  start kubelet --config "$D/kubelet/config.yaml" --kubeconfig "$D/kubeconfigs/kubelet" \
    --root-dir "$D/kubelet/root" --cert-dir "$D/kubelet/pki" --hostname-override "$NODE_NAME" --node-ip "$ip"
  start kube-proxy --config "$D/kube-proxy/config.yaml"

  phase "node $NODE_NAME Ready"
  wait_for kubelet 120 curl -sf http://127.0.0.1:10248/healthz
  wait_for kubelet 120 kubectl_ get node "$NODE_NAME"
  if ! kubectl_ wait --for=condition=Ready "node/$NODE_NAME" --timeout=180s >/dev/null; then
    kubectl_ describe node "$NODE_NAME" >&2 || true
    log "node $NODE_NAME is not Ready; see $D/logs/kubelet.log"
    exit 1
  fi
  phase_end
  if [ "${CLUSTER_INSTALL:-1}" = 1 ]; then install_disco; fi
  log "ready: export KUBECONFIG=$KUBECONFIG_ADMIN"
  [ ! -f "$D/credentials.json" ] || log "disco: base URL and API key in $D/credentials.json"
}

# --- disco ---------------------------------------------------------------------------------------

DISCO_UID=65532 # the disco image's user (hack/image)
NODEPORT=30080  # config/overlays/local/facade_local.yaml
DISCO_IMG="docker.io/library/disco:dev"

# install_disco: config/overlays/local, rendered by $D/install/kustomization.yaml with this
# machine's paths and secrets, applied with kubectl; then waits for every part to be Ready
# and writes $D/credentials.json (base_url, api_key) as `disco dev` does.
install_disco() {
  local data="$D/disco" inst="$D/install"
  phase "disco: host directories, ledger key, facade certificate"
  # The blob store (manager, facade, engine pods) and the SQL store (manager, facade): owned
  # by the image's user, whom the pods run as; nobody else may read them.
  mkdir -p "$data/blobs" "$data/db"
  chown "$DISCO_UID:$DISCO_UID" "$data/blobs" "$data/db"
  chmod 0700 "$data/blobs" "$data/db"
  mkdir -p "$inst" && chmod 700 "$inst"
  [ -x "$IMAGE_DIR/disco" ] || { log "$IMAGE_DIR/disco is missing: run make image"; exit 1; }
  "$IMAGE_DIR/disco" bootstrap ledger-key "$PKI/ledger.key" > "$PKI/ledger.pub"
  # The facade's TLS certificate for the aggregation layer, which checks it against the
  # Service's DNS name.
  cert ca disco-apiserver "/CN=disco-apiserver.disco-system.svc" serverAuth \
    "DNS:disco-apiserver.disco-system.svc,DNS:disco-apiserver.disco-system.svc.cluster.local"
  chmod 600 "$PKI"/*.key
  local f
  for f in disco-apiserver.crt disco-apiserver.key ledger.key; do install -m 600 "$PKI/$f" "$inst/$f"; done
  local digest
  wait_for containerd 60 ctr_ version
  # `install` alone must also pick up a rebuilt image: import it again (idempotent).
  ctr_ images import "$IMAGE_DIR/disco.oci.tar" >/dev/null
  digest="$(ctr_ images ls | awk -v r="$DISCO_IMG" '$1 == r {print $3}')"
  [ -n "$digest" ] || { log "$DISCO_IMG is not in containerd"; exit 1; }

  phase "disco: kubectl apply -k $inst (config/overlays/local)"
  render_install "$data" "$(realpath --relative-to="$inst" "$ROOT/config/overlays/local")" "$digest" > "$inst/kustomization.yaml.new"
  mv "$inst/kustomization.yaml.new" "$inst/kustomization.yaml"
  kubectl_ apply -k "$inst" > "$D/logs/install.log" 2>&1 || { cat "$D/logs/install.log" >&2; exit 1; }
  kubectl_ wait --for=condition=Established crd --all --timeout=60s >/dev/null

  phase "disco: manager and facade Ready"
  local d
  for d in disco-manager disco-apiserver; do
    if ! kubectl_ -n disco-system rollout status "deploy/$d" --timeout=300s >/dev/null; then
      kubectl_ -n disco-system get pods -o wide >&2 || true
      kubectl_ -n disco-system logs "deploy/$d" --tail=30 >&2 || true
      log "deployment $d is not Ready"
      exit 1
    fi
  done
  wait_for "a manager of the current rollout leading" 120 manager_leads
  wait_for "the admission webhooks' CA" 120 webhook_ca_injected
  wait_for "APIService v1.api.disco.dev" 120 kubectl_ wait --for=condition=Available apiservice/v1.api.disco.dev --timeout=5s
  wait_for "the facade at http://127.0.0.1:$NODEPORT" 120 curl -sf "http://127.0.0.1:$NODEPORT/readyz"

  phase "disco: admin API key, $D/credentials.json"
  write_credentials
  # The cluster's admin (group system:masters, $KUBECONFIG_ADMIN) is a member of the default
  # tenant, so kubectl reaches it through the aggregation layer (/apis/api.disco.dev/v1).
  local tenant
  tenant="$(sed -n 's/.*"tenant_id": *"ten_\([^"]*\)".*/ten-\1/p' "$D/credentials.json")"
  if [ -n "$tenant" ] && [ -z "$(kubectl_ get tenant "$tenant" -o jsonpath='{.spec.groups}')" ]; then
    kubectl_ patch tenant "$tenant" --type merge -p '{"spec": {"groups": ["system:masters"]}}' >/dev/null
  fi
  phase_end
}

# render_install DATA_DIR OVERLAY_PATH IMAGE_DIGEST: the install kustomization. The image
# digest in the pod templates rolls the Deployments when `make image` changed the image.
render_install() {
  local data="$1" overlay="$2" digest="$3" ca
  ca="$(base64 -w0 < "$PKI/ca.crt")"
  cat <<YAML
# Written by hack/cluster.sh: config/overlays/local with this machine's host paths and secrets.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- $overlay
secretGenerator:
- name: disco-apiserver-tls
  namespace: disco-system
  type: kubernetes.io/tls
  files:
  - tls.crt=disco-apiserver.crt
  - tls.key=disco-apiserver.key
- name: disco-ledger-key
  namespace: disco-system
  files:
  - ledger.key
patches:
- patch: |-
    apiVersion: apiregistration.k8s.io/v1
    kind: APIService
    metadata:
      name: v1.api.disco.dev
    spec:
      caBundle: $ca
YAML
  local d
  for d in disco-manager disco-apiserver; do
    cat <<YAML
- patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: $d
      namespace: disco-system
    spec:
      template:
        metadata:
          annotations:
            disco.dev/image-digest: "$digest"
        spec:
          volumes:
          - name: blobs
            hostPath: {path: $data/blobs, type: Directory}
          - name: db
            hostPath: {path: $data/db, type: Directory}
YAML
    if [ "$d" = disco-manager ]; then
      cat <<YAML
          containers:
          - name: manager
            env:
            - name: DISCO_ENGINE_BLOB_VOLUME
              value: '{"hostPath": {"path": "$data/blobs", "type": "Directory"}}'
YAML
    fi
  done
}

# manager_leads: the leader lease is held by a Ready manager pod (after a rollout the new
# replicas wait for the old leader's lease to expire).
manager_leads() {
  local holder
  holder="$(kubectl_ -n disco-system get lease disco-manager.discovery.disco.dev -o jsonpath='{.spec.holderIdentity}')"
  [ -n "$holder" ] || return 1
  kubectl_ -n disco-system get pod "${holder%%_*}" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -qx True
}

webhook_ca_injected() {
  local w
  for w in validating mutating; do
    [ -n "$(kubectl_ get "${w}webhookconfiguration" "disco-$w-webhook-configuration" -o jsonpath='{.webhooks[0].clientConfig.caBundle}')" ] || return 1
  done
}

# write_credentials: keeps the API key of an earlier up while the facade accepts it;
# otherwise mints one in a facade pod (disco bootstrap admin-key, which revokes the keys it
# minted before) for the default tenant, which it creates on first use.
write_credentials() {
  local creds="$D/credentials.json" base="http://127.0.0.1:$NODEPORT/v1" key="" out
  if [ -f "$creds" ]; then
    key="$(sed -n 's/.*"api_key": *"\([^"]*\)".*/\1/p' "$creds")"
    if [ -n "$key" ] && [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $key" "$base/projects")" = 200 ]; then
      log "the API key in $creds still works"
      return
    fi
  fi
  out="$(kubectl_ -n disco-system exec deploy/disco-apiserver -c apiserver -- /disco bootstrap admin-key)" || {
    log "could not mint the admin API key"
    exit 1
  }
  local tmp
  tmp="$(mktemp "$creds.XXXXXX")"
  chmod 600 "$tmp"
  # The bootstrap's JSON object (api_key, tenant_id, namespace), its closing brace replaced
  # by the address and the kubeconfig.
  printf '%s\n' "$out" | sed '$d' | sed '$s/$/,/' > "$tmp"
  cat >> "$tmp" <<JSON
  "base_url": "$base",
  "kubeconfig": "$KUBECONFIG_ADMIN"
}
JSON
  mv "$tmp" "$creds"
  log "wrote $creds"
}

# kill_tasks: stops every container of the cluster's containerd (starting containerd for it when
# it died), so no shim or container process outlives `down`.
kill_tasks() {
  [ -f "$D/containerd/config.toml" ] || return 0
  if ! running containerd; then
    [ -d "$D/containerd/state/io.containerd.runtime.v2.task/k8s.io" ] &&
      [ -n "$(ls -A "$D/containerd/state/io.containerd.runtime.v2.task/k8s.io" 2>/dev/null)" ] || return 0
    mkdir -p "$D/run" "$D/logs"
    start_containerd
  fi
  local id
  for id in $(ctr_ tasks ls -q 2>/dev/null); do ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true; done
  for id in $(ctr_ tasks ls -q 2>/dev/null); do
    for _ in 1 2 3 4 5 6 7 8 9 10; do ctr_ tasks delete "$id" >/dev/null 2>&1 && break; sleep 0.5; done
  done
}

down() {
  phase "kubelet, kube-proxy"
  stop kubelet
  stop kube-proxy
  phase "containers"
  kill_tasks
  phase "control plane"
  stop kube-scheduler
  stop kube-controller-manager
  stop kube-apiserver
  stop etcd
  stop containerd
  phase "shims, mounts, network"
  local pid
  for pid in $(pgrep -f "containerd-shim.*-address $SOCK" || true); do kill -KILL "$pid" 2>/dev/null || true; done
  # Mounts under the data dir: pod volumes, container root file systems, sandbox /dev/shm and
  # network namespaces. Deepest first.
  local m
  for m in $(awk -v d="$D/" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link delete "$BRIDGE"; fi
  # Addresses are free once no sandbox runs; the next up's sandboxes take fresh ones.
  rm -rf "$D/cni/ipam/disco"
  if [ -x "$BIN/kube-proxy" ]; then "$BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true; fi
  remove_kube_chains
  # The kubelet's QoS cgroups, deepest first, now that no process is in them.
  local c
  for c in $(find /sys/fs/cgroup -depth -type d -name 'kubepods*' 2>/dev/null); do
    find "$c" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  phase_end
  log "down: nothing of the cluster runs; state kept in $D (rm -rf it for a fresh cluster)"
}

# remove_kube_chains: the kubelet's own iptables chains (KUBE-FIREWALL, KUBE-KUBELET-CANARY,
# KUBE-IPTABLES-HINT) and any KUBE-* chain kube-proxy --cleanup left: first the jumps to them
# from the built-in chains, then their rules, then the chains.
remove_kube_chains() {
  local ipt t rule chain
  for ipt in iptables ip6tables; do
    command -v "$ipt" >/dev/null || continue
    for t in filter nat mangle; do
      "$ipt" -t "$t" -S 2>/dev/null | { grep -E '^-A [A-Z]+ .*-j KUBE-' || true; } | sed 's/^-A /-D /' |
        while read -r rule; do eval "\"\$ipt\" -t \"\$t\" $rule" 2>/dev/null || true; done
      for chain in $("$ipt" -t "$t" -S 2>/dev/null | awk '/^-N KUBE-/ {print $2}'); do "$ipt" -t "$t" -F "$chain" 2>/dev/null || true; done
      for chain in $("$ipt" -t "$t" -S 2>/dev/null | awk '/^-N KUBE-/ {print $2}'); do "$ipt" -t "$t" -X "$chain" 2>/dev/null || true; done
    done
  done
}

status() {
  local c
  for c in "${COMPONENTS[@]}"; do
    if running "$c"; then echo "$c running (pid $(cat "$(pidfile "$c")"))"; else echo "$c stopped"; fi
  done
}

case "${1:-}" in
  up) up ;;
  install) install_disco ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status|install" >&2; exit 2 ;;
esac
