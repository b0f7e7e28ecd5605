# disco — see README.md. The two commands that matter: `make run` and `make test`.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

LOCALBIN ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen
CONTROLLER_TOOLS_VERSION ?= v0.21.0
GOLANGCI_LINT ?= $(LOCALBIN)/golangci-lint
GOLANGCI_LINT_VERSION ?= v2.15.0
KUBE_VERSION ?= v1.36.3
ETCD_VERSION ?= v3.6.5
KUBEBUILDER_ASSETS ?= $(LOCALBIN)/k8s
IMG ?= disco:dev
PAUSE_IMG ?= disco.local/pause:dev
IMAGE_DIR ?= $(LOCALBIN)/image
CONTAINERD_ADDRESS ?= /run/containerd/containerd.sock
CLUSTER_DIR ?= $(CURDIR)/.cluster
PYTHON ?= python3
export KUBEBUILDER_ASSETS

.PHONY: all
all: build

##@ Develop

.PHONY: run
run: build envtest ## Run the local stack: embedded control plane, SQLite, local blobs; prints an API key.
	$(LOCALBIN)/disco dev --data-dir ./.disco --assets-dir $(KUBEBUILDER_ASSETS)

.PHONY: build
build: generate dashboard-assets ## Build bin/disco.
	go build -o $(LOCALBIN)/disco .

.PHONY: dashboard-assets chromium
dashboard-assets: ## Vendor the dashboard's htmx from npm at the lockfile's version.
	dashboard/web/vendor.sh
chromium: ## Install headless Chromium (Debian package) for the dashboard's browser tests.
	hack/install-chromium.sh

.PHONY: manifests
manifests: controller-gen ## Generate CRDs and RBAC from the Go markers.
	$(CONTROLLER_GEN) rbac:roleName=disco-manager crd:allowDangerousTypes=true,maxDescLen=400 webhook paths="./api/..." paths="./controllers/..." paths="./runexec/..." paths="./admission/..." output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac output:webhook:artifacts:config=config/webhook

.PHONY: generate
generate: controller-gen ## Generate deepcopy code.
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./api/..."

.PHONY: fmt vet
fmt:
	gofmt -l -w $$(git ls-files '*.go' | grep -v zz_generated)
vet:
	go vet ./...

##@ Test

.PHONY: test
test: verify-generated verify-python-models lint envtest kubectl chromium build ## Run every test: Go unit and envtest suites, then the Python client against a live stack.
	@unformatted="$$(gofmt -l $$(git ls-files '*.go'))"; if [ -n "$$unformatted" ]; then \
		echo "not gofmt-formatted (run 'make fmt'):"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	DISCO_REQUIRE_KUBECTL=1 go test -count=1 -timeout 30m ./...
	@if [ -f clients/python/pyproject.toml ]; then hack/test-python.sh; fi
	@if [ -x hack/test-schemathesis.sh ]; then hack/test-schemathesis.sh; fi

.PHONY: test-cluster
test-cluster: ## Drive the cluster of `make cluster-up` as users do: runs as Jobs, cancel, refused Jobs (issue 13).
	DISCO_TEST_CLUSTER=1 CLUSTER_DIR=$(CLUSTER_DIR) go test -count=1 -timeout 30m -v ./test/cluster/

.PHONY: verify-generated
verify-generated: manifests generate ## Fail when generated files are stale.
	@if [ -n "$$(git status --porcelain -- api config/crd config/rbac config/webhook)" ]; then \
		echo "generated files are stale; run 'make manifests generate' and commit:"; \
		git status --porcelain -- api config/crd config/rbac config/webhook; git --no-pager diff --stat -- api config; exit 1; fi

.PHONY: generate-python-models verify-python-models
generate-python-models: ## Regenerate the Python client's models from the facade's OpenAPI (issue 16).
	hack/gen-python-models.sh
verify-python-models: ## Fail when the Python client's generated models are stale against the facade's OpenAPI.
	hack/gen-python-models.sh --check

.PHONY: bench bench-engine bench-api
bench: bench-engine bench-api ## Benchmarks (not part of make test).
bench-engine: bench-dynamics
	@if [ -x test/bench/run-engine.sh ]; then test/bench/run-engine.sh; else go test -run '^$$' -bench . -benchtime 1x ./engine/...; fi
bench-dynamics: ; test/bench/dynamics/run.sh # equations of motion against pysindy, a few minutes (test/bench/README.md, "dynamics")
bench-scale: ; go run ./test/bench/scale -time-limit 60s -out test/bench/scale/results/sweep.json $(BENCH_SCALE_ARGS) && go run ./test/bench/scale -pc 100000x200 -out test/bench/scale/results/pc.json # time and peak memory over rows and columns per mode; causal discovery against causal-learn PC (test/bench/README.md, "scale")
bench-api:
	@if [ -x test/bench/run-api.sh ]; then test/bench/run-api.sh; else echo "bench-api: not implemented yet (facade issue)"; exit 2; fi
bench-cluster: ; go run ./test/bench/cluster -creds $(CLUSTER_DIR)/credentials.json -out $(CLUSTER_DIR)/bench.json $(BENCH_CLUSTER_ARGS) # the cluster of `make cluster-up`: latency, a burst under a pod quota, memory (test/bench/README.md)
bench-dashboard: ## The dashboard's claims page at 1,000 and 100,000 claims side by side, and first render on disco dev (test/bench/README.md, "dashboard").
	go run ./test/bench/dashboard -out test/bench/dashboard/results/dashboard-$$(date -u +%Y%m%dT%H%M%SZ).json $(BENCH_DASHBOARD_ARGS)
bench-manager-memory: build ## The manager's cache memory at 10,000 Runs and 100,000 Claims on envtest, per cache variant, then `disco manager`'s startup peak (test/bench/README.md, "manager memory").
	go run ./test/bench/managermem -startup bin/disco $(BENCH_MANAGER_MEMORY_ARGS)

##@ Tools

.PHONY: envtest
envtest: ## Build kube-apiserver and etcd from the Go module proxy (first time ~6 min) into bin/k8s.
	KUBE_VERSION=$(KUBE_VERSION) ETCD_VERSION=$(ETCD_VERSION) hack/build-control-plane.sh

.PHONY: node
node: ## Build kubelet, kube-controller-manager, kube-scheduler, kube-proxy, kubectl into bin/k8s; install containerd, runc, CNI plugins.
	KUBE_VERSION=$(KUBE_VERSION) hack/build-node.sh

.PHONY: kubectl
kubectl: ## Build kubectl (with the node components, cached) and link it at bin/kubectl.
	KUBE_VERSION=$(KUBE_VERSION) SKIP_PACKAGES=1 hack/build-node.sh
	ln -sf k8s/kubectl $(LOCALBIN)/kubectl

.PHONY: lint golangci-lint
lint: golangci-lint ## Lint every Go package with .golangci.yaml (kueue's linters).
	$(GOLANGCI_LINT) run ./...
golangci-lint: $(GOLANGCI_LINT)
$(GOLANGCI_LINT):
	GOBIN=$(LOCALBIN) GOFLAGS= go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)

.PHONY: controller-gen
controller-gen: $(CONTROLLER_GEN)
$(CONTROLLER_GEN):
	GOBIN=$(LOCALBIN) GOFLAGS= go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_TOOLS_VERSION)

##@ Deploy

.PHONY: docker-build
docker-build: ## Build the image (needs a Docker engine).
	docker build -t $(IMG) .

.PHONY: image
image: dashboard-assets ## Build the disco image and the pod sandbox (pause) image as OCI archives in bin/image, without Docker.
	@mkdir -p $(IMAGE_DIR)
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(IMAGE_DIR)/disco .
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o $(IMAGE_DIR)/pause ./hack/image/pause
	go run ./hack/image -kind disco -binary $(IMAGE_DIR)/disco -name $(IMG) -out $(IMAGE_DIR)/disco.oci.tar
	go run ./hack/image -kind pause -binary $(IMAGE_DIR)/pause -name $(PAUSE_IMG) -out $(IMAGE_DIR)/pause.oci.tar

.PHONY: image-load
image-load: image ## Import both images into containerd's k8s.io namespace (containerd must be running).
	@ctr --address $(CONTAINERD_ADDRESS) version >/dev/null 2>&1 || { \
		echo "containerd is not answering at $(CONTAINERD_ADDRESS): start it (containerd &) or set CONTAINERD_ADDRESS"; exit 1; }
	ctr --address $(CONTAINERD_ADDRESS) -n k8s.io images import $(IMAGE_DIR)/disco.oci.tar
	ctr --address $(CONTAINERD_ADDRESS) -n k8s.io images import $(IMAGE_DIR)/pause.oci.tar

.PHONY: cluster-up
cluster-up: envtest node kubectl image ## Start a single-node cluster under $(CLUSTER_DIR) and install disco (config/overlays/local); needs root.
	CLUSTER_DIR=$(CLUSTER_DIR) IMAGE_DIR=$(IMAGE_DIR) PAUSE_IMG=$(PAUSE_IMG) hack/cluster.sh up

.PHONY: cluster-down
cluster-down: ## Stop the cluster: no processes, mounts or interfaces are left; its state stays in $(CLUSTER_DIR).
	CLUSTER_DIR=$(CLUSTER_DIR) hack/cluster.sh down

.PHONY: deploy
deploy: manifests ## Install CRDs, RBAC and the manager into the current cluster.
	kubectl apply -k config/default
