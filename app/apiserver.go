package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/internal/index"
)

type apiserverOptions struct {
	listen        string
	baseURL       string
	dsn           string
	blobURL       string
	ledgerKeyPath string
	redisURL      string
	tlsCert       string
	tlsKey        string
	requestLimits string
	runLimits     string
	timeouts      apiserver.Timeouts
	verbose       bool
	agg           aggregationOptions
}

func newAPIServerCommand() *cobra.Command {
	o := apiserverOptions{}
	cmd := &cobra.Command{
		Use:   "apiserver",
		Short: "Run the REST facade in a cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runAPIServer(ctx, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", ":8443", "address to serve on")
	f.StringVar(&o.baseURL, "base-url", os.Getenv("DISCO_BASE_URL"), "public base URL including /v1")
	f.StringVar(&o.dsn, "store-dsn", os.Getenv("DISCO_STORE_DSN"), "SQL store: postgres://... or a SQLite path")
	f.StringVar(&o.blobURL, "blob-url", os.Getenv("DISCO_BLOB_URL"), "blob store (file:///dir or s3://bucket?...)")
	f.StringVar(&o.ledgerKeyPath, "ledger-key", "/var/run/disco/ledger.key", "ed25519 key file that signs ledger checkpoints")
	f.StringVar(&o.redisURL, "redis-url", os.Getenv("DISCO_REDIS_URL"), "share rate limits between replicas through Redis")
	f.StringVar(&o.tlsCert, "tls-cert-file", "", "serve TLS with this certificate (needed behind an APIService)")
	f.StringVar(&o.tlsKey, "tls-private-key-file", "", "key of --tls-cert-file")
	f.StringVar(&o.requestLimits, "requests-per-minute", "", "override request limits by tier, e.g. free=60,team=600,enterprise=6000")
	f.StringVar(&o.runLimits, "runs-per-minute", "", "override run-submission limits by tier, e.g. free=10,team=100,enterprise=1000")
	f.DurationVar(&o.timeouts.ReadHeader, "read-header-timeout", apiserver.DefaultReadHeaderTimeout, "longest time to read a request's headers")
	f.DurationVar(&o.timeouts.Idle, "idle-timeout", apiserver.DefaultIdleTimeout, "longest time a keep-alive connection waits for its next request")
	f.DurationVar(&o.timeouts.BodyStall, "body-stall-timeout", apiserver.DefaultBodyStallTimeout, "longest wait for the next bytes of a request body")
	f.DurationVar(&o.timeouts.Body, "body-timeout", apiserver.DefaultBodyTimeout, "longest time to read a whole request body other than a dataset upload")
	f.DurationVar(&o.timeouts.Upload, "upload-timeout", apiserver.DefaultUploadTimeout, "longest time to read a whole dataset upload")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "log at info level")
	o.agg.addFlags(f)
	return cmd
}

func runAPIServer(ctx context.Context, o apiserverOptions) error {
	setupLogging(os.Stderr, o.verbose)
	if o.dsn == "" || o.blobURL == "" {
		return errors.New("--store-dsn and --blob-url are required (or DISCO_STORE_DSN and DISCO_BLOB_URL)")
	}
	limits, err := parseLimits(o.requestLimits, o.runLimits)
	if err != nil {
		return err
	}
	scheme, cfg, err := clusterClient()
	if err != nil {
		return err
	}
	// The manager gives the facade a cache and a client; it runs no controllers.
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Cache: index.CacheOptions(), Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		return err
	}
	if err := index.Register(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}
	requestHeader, err := o.agg.requestHeader(ctx, mgr.GetAPIReader(), o.tlsCert != "")
	if err != nil {
		return err
	}
	b, err := openBackends(ctx, o.dsn, o.blobURL, o.ledgerKeyPath)
	if err != nil {
		return err
	}
	defer b.close()
	var synced atomic.Bool
	srv, err := apiserver.New(apiserver.Options{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Informers: mgr.GetCache(), Store: b.store, Ledger: b.ledger, Blob: b.blob,
		Logger: ctrl.Log.WithName("apiserver"), BaseURL: o.baseURL, RedisURL: o.redisURL, Limits: limits, Timeouts: o.timeouts,
		ScratchDir: os.Getenv("DISCO_SCRATCH_DIR"), RequestHeader: requestHeader,
		Ready: func(*http.Request) error {
			if !synced.Load() {
				return errors.New("caches are not synced yet")
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	go srv.Maintain(ctx)
	go func() {
		if mgr.GetCache().WaitForCacheSync(ctx) {
			synced.Store(true)
		}
	}()
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Start(ctx) }()

	handler := facadeHandler(srv, o.baseURL)
	if o.baseURL != "" { // the dashboard needs the public origin for its OAuth redirect
		if handler, err = withDashboard(ctx, handler, apiserver.Options{Store: b.store, BaseURL: o.baseURL, Logger: ctrl.Log},
			"", o.ledgerKeyPath, tenantIn(mgr.GetAPIReader())); err != nil {
			return err
		}
	}
	servers, err := facadeServers(srv, handler, o)
	if err != nil {
		return err
	}
	serveDone := make(chan error, len(servers))
	for _, s := range servers {
		go func() { serveDone <- s.serve() }()
	}
	select {
	case <-ctx.Done():
	case err := <-serveDone:
		return err
	case err := <-mgrDone:
		return fmt.Errorf("cache stopped: %w", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	for _, s := range servers {
		errs = append(errs, s.Shutdown(shutdownCtx))
	}
	return errors.Join(errs...)
}

// parseLimits reads "tier=n,tier=n" overrides for the request and run-submission buckets.
func parseLimits(requests, runs string) (*apiserver.Limits, error) {
	l := &apiserver.Limits{Requests: map[discov1.TenantTier]int{}, Runs: map[discov1.TenantTier]int{}}
	for _, spec := range []struct {
		flag, value string
		into        map[discov1.TenantTier]int
	}{{"--requests-per-minute", requests, l.Requests}, {"--runs-per-minute", runs, l.Runs}} {
		if spec.value == "" {
			continue
		}
		for _, part := range strings.Split(spec.value, ",") {
			tier, n, ok := strings.Cut(strings.TrimSpace(part), "=")
			v, err := strconv.Atoi(n)
			switch discov1.TenantTier(tier) {
			case discov1.TenantTierFree, discov1.TenantTierTeam, discov1.TenantTierEnterprise:
			default:
				ok = false
			}
			if !ok || err != nil || v <= 0 {
				return nil, fmt.Errorf("%s %q: want tier=n with tier free, team or enterprise and n > 0", spec.flag, part)
			}
			spec.into[discov1.TenantTier(tier)] = v
		}
	}
	return l, nil
}
