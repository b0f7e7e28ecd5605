// Package benchenv starts what bench-api and bench-dashboard measure: envtest (etcd and
// kube-apiserver with the CRDs), a manager with the claim index and only the tenant and
// project controllers, and the REST facade built as the composition root builds it, with a
// SQLite store, file blobs and a ledger in a temporary directory, one enterprise tenant, its
// namespace and an admin API key.
package benchenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/controllers"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// Env is a running facade over envtest. Close stops everything Start started.
type Env struct {
	Direct    client.Client // uncached, for bulk writes straight to the Kubernetes API
	Store     *store.Store
	Options   apiserver.Options
	Server    *apiserver.Server
	Listener  net.Listener // not yet served: the benchmark mounts Server's handler on it
	Origin    string       // http://127.0.0.1:port; Options.BaseURL is Origin + "/v1"
	TenantID  string
	Namespace string
	APIKey    string // the tenant's admin key
	closers   []func()
}

// Start starts the Env. repo is the repository root (config/crd/bases, and bin/k8s when
// KUBEBUILDER_ASSETS is unset). The facade's clock runs speedup times faster than real time
// from the start, so that its per-tenant rate limit does not throttle a benchmark's loop
// while the limiter still runs on every call.
func Start(ctx context.Context, repo string, speedup float64, logf func(string, ...any)) (_ *Env, err error) {
	e := &Env{}
	defer func() {
		if err != nil {
			e.Close()
		}
	}()
	ctrl.SetLogger(logr.Discard())
	repo, err = filepath.Abs(repo)
	if err != nil {
		return nil, err
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		os.Setenv("KUBEBUILDER_ASSETS", filepath.Join(repo, "bin", "k8s"))
	}
	tmp, err := os.MkdirTemp("", "disco-bench-")
	if err != nil {
		return nil, err
	}
	e.onClose(func() { os.RemoveAll(tmp) })

	logf("starting etcd + kube-apiserver from %s", os.Getenv("KUBEBUILDER_ASSETS"))
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join(repo, "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	rc, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start envtest (run `make envtest` first): %w", err)
	}
	e.onClose(func() {
		if err := env.Stop(); err != nil {
			logf("stop envtest: %v", err)
		}
	})
	rc.QPS, rc.Burst = -1, 0 // no client-side throttling of the bulk writes or the informers
	scheme := kruntime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := discov1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(tmp, "disco.db"))
	if err != nil {
		return nil, err
	}
	e.onClose(func() { st.Close() })
	bl, err := blob.Open(ctx, "file://"+filepath.Join(tmp, "blobs"))
	if err != nil {
		return nil, err
	}
	e.onClose(func() { bl.Close() })
	key, err := ledger.LoadOrCreateKey(filepath.Join(tmp, "ledger.key"))
	if err != nil {
		return nil, err
	}
	led, err := ledger.New(st, key.Signer)
	if err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(rc, ctrl.Options{Scheme: scheme, Cache: index.CacheOptions(),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		return nil, err
	}
	if err := index.Register(ctx, mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	// Only the controllers the facade's reads depend on: the tenant's namespace and the
	// project. The claim controller would patch the status of every bulk-created claim
	// (100k extra writes and cache events during the setup) without changing the answers.
	if err := (&controllers.TenantReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("tenant-controller")}).SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if err := (&controllers.ProjectReconciler{Client: mgr.GetClient(), Recorder: mgr.GetEventRecorder("project-controller")}).SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if e.Direct, err = client.New(rc, client.Options{Scheme: scheme}); err != nil {
		return nil, err
	}

	t0 := time.Now()
	now := func() time.Time { return t0.Add(time.Duration(float64(time.Since(t0)) * speedup)) }
	if e.Listener, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	e.onClose(func() { e.Listener.Close() })
	e.Origin = "http://" + e.Listener.Addr().String()
	e.Options = apiserver.Options{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Store: st, Ledger: led, Blob: bl,
		Logger: logr.Discard(), BaseURL: e.Origin + "/v1", Now: now, Informers: mgr.GetCache()}
	if e.Server, err = apiserver.New(e.Options); err != nil {
		return nil, err
	}
	e.Store = st
	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	e.onClose(func() { stopMgr(); <-mgrDone }) //nolint:errcheck // the manager only stops here
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return nil, errors.New("caches did not sync")
	}

	e.TenantID = ids.New(ids.Tenant)
	if err := e.Direct.Create(ctx, &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(e.TenantID)},
		Spec: discov1.TenantSpec{DisplayName: "bench", Tier: discov1.TenantTierEnterprise}}); err != nil {
		return nil, fmt.Errorf("create tenant: %w", err)
	}
	if e.Namespace, err = waitNamespace(ctx, e.Direct, e.TenantID); err != nil {
		return nil, err
	}
	if e.APIKey, err = apiserver.Bootstrap(ctx, e.Options, e.TenantID, ""); err != nil {
		return nil, err
	}
	return e, nil
}

// onClose registers f to run at Close, after everything registered later.
func (e *Env) onClose(f func()) { e.closers = append(e.closers, f) }

// Close stops what Start started, in reverse order.
func (e *Env) Close() {
	for i := len(e.closers) - 1; i >= 0; i-- {
		e.closers[i]()
	}
	e.closers = nil
}

func waitNamespace(ctx context.Context, c client.Client, tenantID string) (string, error) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		t := &discov1.Tenant{}
		if err := c.Get(ctx, client.ObjectKey{Name: ids.ToName(tenantID)}, t); err == nil && t.Status.Namespace != "" {
			if err := c.Get(ctx, client.ObjectKey{Name: t.Status.Namespace}, &corev1.Namespace{}); err == nil {
				return t.Status.Namespace, nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return "", errors.New("the tenant's namespace was not created within a minute")
}
