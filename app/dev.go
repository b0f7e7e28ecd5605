package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/discolab/disco/admission"
	"github.com/discolab/disco/admission/local"
	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/internal/datasource"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
)

// LabelDefaultTenant marks the tenant `disco dev` creates for its user.
const LabelDefaultTenant = "discovery.disco.dev/default"

type devOptions struct {
	dataDir   string
	listen    string
	assetsDir string
	verbose   bool
}

func newDevCommand() *cobra.Command {
	o := devOptions{}
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the local stack: embedded control plane, controllers, REST facade, SQLite and local blobs",
		Long: `dev starts etcd and kube-apiserver from local binaries (built by 'make envtest'), installs
the CRDs, creates a default tenant, runs the controllers and the REST facade in this process,
and prints the base URL and an admin API key. Everything is kept under --data-dir, so a
restart with the same directory keeps all objects. Ctrl-C stops it cleanly.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			// Whoever read our output may be gone (a closed terminal, a killed test or
			// pipe): a write to it must fail, not kill us with SIGPIPE before the control
			// plane is stopped (os/signal, "SIGPIPE").
			signal.Ignore(syscall.SIGPIPE)
			return runDev(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&o.dataDir, "data-dir", ".disco", "directory for etcd, SQLite, blobs, keys and credentials")
	cmd.Flags().StringVar(&o.listen, "listen", "127.0.0.1:8080", "address of the REST facade")
	cmd.Flags().StringVar(&o.assetsDir, "assets-dir", "", "directory with kube-apiserver and etcd (default: $KUBEBUILDER_ASSETS, ./bin/k8s, or the build cache)")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "log controller activity")
	return cmd
}

// credentials is written to <data-dir>/credentials.json for scripts and tests.
type credentials struct {
	BaseURL    string `json:"base_url"`
	APIKey     string `json:"api_key"`
	TenantID   string `json:"tenant_id"`
	Kubeconfig string `json:"kubeconfig"`
	// KubeconfigUser is a normal user's kubeconfig (the disco-editor role in Namespace).
	KubeconfigUser string `json:"kubeconfig_user"`
	// Namespace is the default tenant's namespace, where its projects live.
	Namespace string `json:"namespace"`
	// The dashboard's address and the user who signs in to it (the tenant's admin).
	DashboardURL      string `json:"dashboard_url"`
	DashboardUser     string `json:"dashboard_user"`
	DashboardPassword string `json:"dashboard_password"`
}

func runDev(ctx context.Context, o devOptions, out, errOut io.Writer) error {
	dir, err := filepath.Abs(o.dataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	lock, err := lockDataDir(dir)
	if err != nil {
		return err
	}
	defer lock.release()

	// Bind the port before starting anything heavy, so a busy port fails in a second.
	listener, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (is another disco dev running? pass --listen)", o.listen, err)
	}
	defer listener.Close()
	setupLogging(errOut, o.verbose)

	assets, err := findAssets(o.assetsDir)
	if err != nil {
		return err
	}
	reapOrphans(dir, func(msg string) { fmt.Fprintln(errOut, "disco dev: "+msg) })
	fmt.Fprintf(errOut, "disco dev: starting etcd and kube-apiserver from %s (data in %s)\n", assets, dir)
	cp, err := startControlPlane(dir, assets)
	if err != nil {
		return err
	}
	if err := recordChildren(dir); err != nil {
		fmt.Fprintf(errOut, "disco dev: cannot record control-plane PIDs: %v\n", err)
	}
	defer func() {
		fmt.Fprintln(errOut, "disco dev: stopping the control plane")
		if err := cp.stop(); err != nil {
			fmt.Fprintf(errOut, "disco dev: stop control plane: %v\n", err)
		}
	}()

	b, err := openBackends(ctx, "sqlite://"+filepath.Join(dir, "disco.db"), "file://"+filepath.Join(dir, "blobs")+"?no_tmp_dir=true", filepath.Join(dir, "ledger.key"))
	if err != nil {
		return err
	}
	defer b.close()

	scheme, err := newScheme()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cp.config, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  index.CacheOptions(),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer:          local.Server(cp.env),
	})
	if err != nil {
		return err
	}
	admission.Register(mgr, admission.Options{Identities: admission.Identities{Components: []string{local.ComponentUser}}})
	if err := index.Register(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}
	scratch := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return err
	}
	// file:// dataset sources are read from <data dir>/sources/<namespace>/.
	sourceRoot := filepath.Join(dir, "sources")
	if err := os.MkdirAll(sourceRoot, 0o755); err != nil {
		return err
	}
	if err := setupRuns(ctx, mgr, b, scratch, datasource.Opener{Reader: mgr.GetAPIReader(), FileRoot: sourceRoot}, true); err != nil {
		return err
	}

	direct, err := client.New(cp.config, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	tenantID, err := ensureDefaultTenant(ctx, direct)
	if err != nil {
		return err
	}

	var synced atomic.Bool
	disco, err := discovery.NewDiscoveryClientForConfig(cp.config)
	if err != nil {
		return err
	}
	baseURL := "http://" + listener.Addr().String() + "/v1"
	opts := apiserver.Options{
		Client:                mgr.GetClient(),
		APIReader:             mgr.GetAPIReader(),
		Informers:             mgr.GetCache(),
		Store:                 b.store,
		Ledger:                b.ledger,
		Blob:                  b.blob,
		ScratchDir:            scratch,
		Logger:                ctrl.Log.WithName("apiserver"),
		BaseURL:               baseURL,
		AllowLoopbackWebhooks: true,
		Ready: func(r *http.Request) error {
			if !synced.Load() {
				return errors.New("caches are not synced yet")
			}
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			if err := disco.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
				return fmt.Errorf("control plane is not ready: %w", err)
			}
			return nil
		},
	}
	srv, err := apiserver.New(opts)
	if err != nil {
		return err
	}
	go srv.Maintain(ctx) // sweeps old idempotency records and expired OAuth tokens

	mgrCtx, stopMgr := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(mgrCtx) }()
	defer func() { stopMgr(); <-mgrDone }() //nolint:errcheck // waits for the stop; a failure while running is returned below
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return errors.New("caches did not sync")
	}
	ns, err := waitTenantNamespace(ctx, direct, tenantID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(sourceRoot, ns), 0o755); err != nil {
		return err
	}
	if err := grantUserRoles(ctx, direct, ns); err != nil {
		return err
	}
	synced.Store(true)

	dashUser, dashPassword, err := devDashboardUser(ctx, b.store, tenantID, dir)
	if err != nil {
		return fmt.Errorf("create the dashboard user: %w", err)
	}
	apiKey, err := apiserver.Bootstrap(ctx, opts, tenantID, keptAdminKey(dir, tenantID))
	if err != nil {
		return fmt.Errorf("create the admin API key: %w", err)
	}
	creds := credentials{BaseURL: baseURL, APIKey: apiKey, TenantID: tenantID, Kubeconfig: cp.kubeconfig,
		KubeconfigUser: cp.userKubeconfig, Namespace: ns, DashboardURL: strings.TrimSuffix(baseURL, "/v1") + "/",
		DashboardUser: dashUser, DashboardPassword: dashPassword}
	if err := writeJSONFile(filepath.Join(dir, "credentials.json"), creds); err != nil {
		return err
	}

	handler, err := withDashboard(ctx, facadeHandler(srv, baseURL), opts, tenantID, filepath.Join(dir, "ledger.key"),
		func(_ context.Context, id string) bool { return id == tenantID })
	if err != nil {
		return err
	}
	httpSrv := srv.HTTPServer("", handler)
	serveDone := make(chan error, 1)
	go func() { serveDone <- httpSrv.Serve(listener) }()

	fmt.Fprintf(out, `
disco is running.

  dashboard    %s   (sign in as %s, password %s)
  base URL     %s
  API key      %s
  tenant       %s
  kubeconfig   %s   (kubectl --kubeconfig %s get disco)
  user         %s   (an editor in namespace %s: submits runs, cannot promote)
  credentials  %s
  data files   %s   (file:// sources of the namespace's Datasets)

Try:  curl -H "Authorization: Bearer $DISCO_API_KEY" %s/projects
Stop: Ctrl-C
`, creds.DashboardURL, dashUser, dashPassword, baseURL, apiKey, tenantID, cp.kubeconfig, cp.kubeconfig, cp.userKubeconfig, ns, filepath.Join(dir, "credentials.json"), filepath.Join(sourceRoot, ns), baseURL)

	select {
	case <-ctx.Done():
	case err := <-serveDone:
		return fmt.Errorf("REST facade stopped: %w", err)
	case err := <-mgrDone:
		mgrDone <- err
		return fmt.Errorf("controller manager stopped: %w", err)
	}
	fmt.Fprintln(errOut, "\ndisco dev: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return httpSrv.Shutdown(shutdownCtx)
}

// ensureDefaultTenant returns the id of the tenant labelled as the dev default, creating it
// on the first start.
func ensureDefaultTenant(ctx context.Context, c client.Client) (string, error) {
	list := &discov1.TenantList{}
	if err := c.List(ctx, list, client.MatchingLabels{LabelDefaultTenant: "true"}); err != nil {
		return "", fmt.Errorf("list tenants: %w", err)
	}
	if len(list.Items) > 0 {
		return list.Items[0].ID(), nil
	}
	id := ids.New(ids.Tenant)
	t := &discov1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Labels: map[string]string{LabelDefaultTenant: "true"}},
		Spec:       discov1.TenantSpec{DisplayName: "default", Tier: discov1.TenantTierEnterprise},
	}
	if err := c.Create(ctx, t); err != nil {
		return "", fmt.Errorf("create the default tenant: %w", err)
	}
	return id, nil
}

func waitTenantNamespace(ctx context.Context, c client.Client, tenantID string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		t := &discov1.Tenant{}
		if err := c.Get(ctx, client.ObjectKey{Name: ids.ToName(tenantID)}, t); err == nil && t.Status.Namespace != "" {
			return t.Status.Namespace, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("the default tenant's namespace was not created: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func writeJSONFile(path string, v any) error {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(body, '\n'))
}
