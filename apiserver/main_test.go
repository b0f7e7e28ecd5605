package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/listindex"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// One control plane, store and facade serve every test of the package; tests isolate
// themselves by creating their own projects (and tenants where they need them).
var env struct {
	cfg    *rest.Config
	scheme *runtime.Scheme
	client client.Client // the cached client the facade uses
	direct client.Client // uncached, for test setup and assertions
	store  *store.Store
	ledger *ledger.Ledger
	blob   *blob.Bucket
	server *Server
	http   *httptest.Server
	url    string // base URL including /v1

	tenantA, tenantB string // team tier, plenty of requests
	adminA, adminB   string // all-scope keys
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if _, err := os.Stat("../bin/k8s/kube-apiserver"); err == nil {
			abs, _ := filepath.Abs("../bin/k8s")
			os.Setenv("KUBEBUILDER_ASSETS", abs)
		}
	}
	te := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := te.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "envtest:", err)
		return 1
	}
	defer func() { _ = te.Stop() }()
	if err := setup(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "setup:", err)
		return 1
	}
	defer env.http.Close()
	return m.Run()
}

func setup(cfg *rest.Config) error {
	ctx := context.Background()
	env.cfg = cfg
	env.scheme = runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(env.scheme); err != nil {
		return err
	}
	if err := discov1.AddToScheme(env.scheme); err != nil {
		return err
	}
	cacheOpts := index.CacheOptions()
	cacheOpts.Scheme = env.scheme
	c, err := cache.New(cfg, cacheOpts)
	if err != nil {
		return err
	}
	if err := index.Register(ctx, c); err != nil {
		return err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return fmt.Errorf("cache did not sync")
	}
	env.client, err = client.New(cfg, client.Options{Scheme: env.scheme, Cache: &client.CacheOptions{Reader: c}})
	if err != nil {
		return err
	}
	env.direct, err = client.New(cfg, client.Options{Scheme: env.scheme})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "apiserver-test-")
	if err != nil {
		return err
	}
	env.store, err = store.Open(ctx, filepath.Join(dir, "disco.db"))
	if err != nil {
		return err
	}
	key, err := ledger.LoadOrCreateKey(filepath.Join(dir, "ledger.key"))
	if err != nil {
		return err
	}
	env.ledger, err = ledger.New(env.store, key.Signer)
	if err != nil {
		return err
	}
	env.blob, err = blob.Open(ctx, "file://"+filepath.Join(dir, "blobs"))
	if err != nil {
		return err
	}

	env.http = httptest.NewUnstartedServer(nil)
	env.url = "http://" + env.http.Listener.Addr().String() + "/v1"
	env.server, err = New(Options{
		Client: env.client, APIReader: env.direct, Store: env.store, Ledger: env.ledger, Blob: env.blob,
		BaseURL: env.url, MaxUploadBytes: 1 << 20, AllowLoopbackWebhooks: true, Informers: c,
	})
	if err != nil {
		return err
	}
	// Tests make far more requests than a real tenant; the limit tests lower these again.
	env.server.front.Limits.Anonymous = 1 << 20
	for tier := range env.server.front.Limits.Requests {
		env.server.front.Limits.Requests[tier] = 1 << 20
		env.server.front.Limits.Runs[tier] = 1 << 20
	}
	env.http.Config.Handler = env.server.Handler()
	env.http.Start()

	if env.tenantA, err = makeTenant(ctx, discov1.TenantTierTeam); err != nil {
		return err
	}
	if env.tenantB, err = makeTenant(ctx, discov1.TenantTierTeam); err != nil {
		return err
	}
	if env.adminA, err = Bootstrap(ctx, env.server.opts, env.tenantA, ""); err != nil {
		return err
	}
	if env.adminB, err = Bootstrap(ctx, env.server.opts, env.tenantB, ""); err != nil {
		return err
	}
	return nil
}

// makeTenant creates a Tenant object and its namespace (the controller's job in a real
// deployment).
func makeTenant(ctx context.Context, tier discov1.TenantTier) (string, error) {
	id := ids.New(ids.Tenant)
	ns := "disco-" + ids.ToName(id)
	if err := env.direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return "", err
	}
	t := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id)}, Spec: discov1.TenantSpec{Tier: tier, Namespace: ns}}
	if err := env.direct.Create(ctx, t); err != nil {
		return "", err
	}
	return id, nil
}

// replicaWith starts another facade over the shared control plane and store, with the
// options change makes, and returns its base URL (with /v1).
func replicaWith(t *testing.T, change func(*Options)) string {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String() + "/v1"
	opts := Options{
		Client: env.client, APIReader: env.direct, Store: env.store, Ledger: env.ledger, Blob: env.blob,
		BaseURL: url, MaxUploadBytes: 1 << 20, AllowLoopbackWebhooks: true,
	}
	change(&opts)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.front.Limits.Anonymous = 1 << 20
	for tier := range s.front.Limits.Requests {
		s.front.Limits.Requests[tier] = 1 << 20
		s.front.Limits.Runs[tier] = 1 << 20
	}
	hs.Config.Handler = s.Handler()
	hs.Start()
	t.Cleanup(hs.Close)
	return url
}

// inFacadeCache waits until the facade's cache holds obj as the test wrote it through
// env.direct: at the resource version the write returned, or a later one.
func inFacadeCache(t *testing.T, obj client.Object) {
	t.Helper()
	fresh := obj.DeepCopyObject().(client.Object)
	eventually(t, func() error {
		if err := env.client.Get(context.Background(), client.ObjectKeyFromObject(obj), fresh); err != nil {
			return err
		}
		if !listindex.VersionReached(fresh.GetResourceVersion(), obj.GetResourceVersion()) {
			return fmt.Errorf("the cache holds %s at version %s, not yet %s", obj.GetName(), fresh.GetResourceVersion(), obj.GetResourceVersion())
		}
		return nil
	})
}

// newKey creates an API key for the tenant with the given scopes and project restriction.
func newKey(t *testing.T, tenantID string, scopes []string, projects ...string) string {
	t.Helper()
	if scopes == nil {
		scopes = auth.All
	}
	_, key, err := env.store.CreateAPIKey(context.Background(), store.NewAPIKey{
		TenantID: tenantID, Name: t.Name(), Scopes: scopes, ProjectIDs: projects, CreatedBy: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	JSON   map[string]any
}

// call sends a request; body may be nil, a []byte, a string, or a value to marshal.
func call(t *testing.T, method, path, key string, body any, headers ...string) *response {
	t.Helper()
	var r io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		r, ct = bytes.NewReader(b), "application/json"
	case string:
		r, ct = strings.NewReader(b), "application/json"
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		r, ct = bytes.NewReader(raw), "application/json"
	}
	url := path
	if !strings.HasPrefix(path, "http") {
		url = strings.TrimSuffix(env.url, "/v1") + path
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := &response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.JSON)
	return out
}

// expect fails unless the response has the status (and, for errors, the code).
func (r *response) expect(t *testing.T, status int, code ...string) *response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	if len(code) > 0 {
		if got := r.errCode(); got != code[0] {
			t.Fatalf("error code %q, want %q: %s", got, code[0], r.Raw)
		}
	}
	return r
}

func (r *response) errCode() string {
	e, _ := r.JSON["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func (r *response) errDetails() map[string]any {
	e, _ := r.JSON["error"].(map[string]any)
	d, _ := e["details"].(map[string]any)
	return d
}

func (r *response) str(key string) string {
	v, _ := r.JSON[key].(string)
	return v
}

// eventually retries f until it returns nil or the timeout passes.
func eventually(t *testing.T, f func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mustProject creates a project with the admin key of tenant A and returns its id.
func mustProject(t *testing.T, key string, body map[string]any) string {
	t.Helper()
	if body == nil {
		body = map[string]any{"name": "p " + t.Name()}
	}
	r := call(t, "POST", "/v1/projects", key, body).expect(t, 201)
	return r.str("id")
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func clientKey(name string) client.ObjectKey { return client.ObjectKey{Name: name} }
