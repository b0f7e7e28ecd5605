#!/usr/bin/env bash
# Property-based API tests: schemathesis against the OpenAPI document of a live `disco dev`
# facade (bin/disco, built by `make build`). Every operation is exercised with a bounded
# number of generated requests and a fixed seed; the run fails on any 5xx, any response
# that does not match its documented schema, and any undocumented status code.
#   ST_MAX_EXAMPLES=20     generated cases per operation
#   ST_SEED=20240601       seed (deterministic generation)
#   ST_WORKERS=1           concurrent workers. More than one is flaky on Python < 3.11.8
#                          (the CI machines have 3.11.7): hypothesis then calls ast.parse
#                          from two threads, which can fail with "SystemError: AST
#                          constructor recursion depth mismatch" (CPython gh-106905).
#   ST_TIMEOUT=600         hard bound on the schemathesis run, in seconds
#   ST_ARGS="..."          extra schemathesis arguments
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
bin=bin/disco
if [ ! -x "$bin" ]; then
  echo "test-schemathesis: $bin not found; run make build" >&2
  exit 1
fi
if ! "$PYTHON" -m schemathesis.cli --version >/dev/null 2>&1 && ! command -v schemathesis >/dev/null; then
  echo "==> installing schemathesis"
  "$PYTHON" -m pip install -q "schemathesis>=4.20,<5"
fi
st=(schemathesis)
command -v schemathesis >/dev/null || st=("$PYTHON" -m schemathesis.cli)

data=$(mktemp -d -t disco-st-XXXXXX)
report=$(mktemp -d -t disco-st-report-XXXXXX)
port=$("$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$data" "$report"
}
trap cleanup EXIT

echo "==> disco dev on 127.0.0.1:$port (data in $data)"
"$bin" dev --data-dir "$data" --listen "127.0.0.1:$port" >"$data/dev.log" 2>&1 &
pid=$!

creds="$data/credentials.json"
for i in $(seq 1 600); do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "test-schemathesis: disco dev exited" >&2
    tail -50 "$data/dev.log" >&2
    exit 1
  fi
  if [ -s "$creds" ] && curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
    break
  fi
  if [ "$i" -eq 600 ]; then
    echo "test-schemathesis: disco dev not ready after 5 minutes" >&2
    tail -50 "$data/dev.log" >&2
    exit 1
  fi
  sleep 0.5
done
read -r base key < <("$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["base_url"].rstrip("/"), c["api_key"])' "$creds")

# Seed one of each resource, so generated requests reach the handlers' logic instead of
# stopping at 404: a project, a campaign (small budget: fuzzed submissions soon hit
# budget_exhausted), a ready dataset, a completed run with its claims, a webhook.
config="$data/schemathesis.toml"
echo "==> seeding resources"
"$PYTHON" - "$base" "$key" "$port" "$config" <<'PY'
import json, sys, time, urllib.error, urllib.request, uuid

base, key, port, config = sys.argv[1:5]

def call(method, path, body=None, ctype="application/json"):
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Authorization": "Bearer " + key, "Content-Type": ctype})
    try:
        with urllib.request.urlopen(req, timeout=30) as res:
            return json.loads(res.read() or b"null")
    except urllib.error.HTTPError as e:
        sys.exit(f"seed: {method} {path}: {e.code} {e.read().decode(errors='replace')}")

def wait(path, field, want, timeout=240):
    deadline = time.time() + timeout
    while True:
        obj = call("GET", path)
        if obj.get(field) in want:
            return obj
        if time.time() > deadline:
            sys.exit(f"seed: {path} still {obj.get(field)} after {timeout}s")
        time.sleep(0.5)

pid = call("POST", "/projects", {"name": "schemathesis"})["id"]
cid = call("POST", f"/projects/{pid}/campaigns",
           {"name": "schemathesis", "budget": {"compute_units": 100000, "max_runs": 4}})["id"]
rows = "t,x,y\n" + "".join(f"{i},{i * 0.5},{3 * i * 0.5 + 1}\n" for i in range(40))
boundary = uuid.uuid4().hex
body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"metadata\"\r\n\r\n"
        + json.dumps({"name": "linear", "format": "csv"})
        + f"\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"d.csv\"\r\n"
        + "Content-Type: text/csv\r\n\r\n" + rows + f"\r\n--{boundary}--\r\n").encode()
did = call("POST", f"/projects/{pid}/datasets", body, "multipart/form-data; boundary=" + boundary)["id"]
wait(f"/projects/{pid}/datasets/{did}", "status", {"ready"})
run = call("POST", f"/projects/{pid}/campaigns/{cid}/runs",
           {"mode": "symbolic", "dataset_id": did, "parameters": {"target_variables": ["y"], "max_complexity": 8}})
rid = run["id"]
wait(f"/projects/{pid}/campaigns/{cid}/runs/{rid}", "status", {"completed", "failed"})
claims = call("GET", f"/projects/{pid}/claims")["data"]
whk = call("POST", "/webhooks", {"url": f"http://127.0.0.1:{port}/hook", "events": ["*"], "project_id": pid, "secret": "schemathesis-secret-0123456789abcdef"})["id"]
params = {"project_id": pid, "campaign_id": cid, "dataset_id": did, "run_id": rid, "webhook_id": whk}
if claims:
    params["claim_id"] = claims[0]["id"]
with open(config, "w") as f:
    f.write("[parameters]\n")
    for k, v in params.items():
        f.write(f'"{k}" = "{v}"\n')
print("seed:", json.dumps(params))
PY
echo "==> schemathesis against $base/openapi.json"

set +e
# shellcheck disable=SC2086
# From the temp dir: schemathesis keeps a .schemathesis cache in its working directory.
(cd "$data" && timeout --signal=INT "${ST_TIMEOUT:-600}" "${st[@]}" --config-file "$config" run "$base/openapi.json" \
  --header "Authorization: Bearer $key" \
  --checks not_a_server_error,response_schema_conformance,status_code_conformance \
  --max-examples "${ST_MAX_EXAMPLES:-20}" \
  --seed "${ST_SEED:-20240601}" \
  --workers "${ST_WORKERS:-1}" \
  --request-timeout 30 \
  --suppress-health-check all \
  --report junit --report-dir "$report" \
  ${ST_ARGS:-})
rc=$?
set -e
if [ "$rc" -eq 124 ]; then
  echo "test-schemathesis: the run exceeded ${ST_TIMEOUT:-600}s" >&2
fi
if [ "$rc" -ne 0 ]; then
  echo "test-schemathesis: FAILED (exit $rc); disco dev log tail:" >&2
  tail -20 "$data/dev.log" >&2
  exit "$rc"
fi
echo "test-schemathesis: passed"
