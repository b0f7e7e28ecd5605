package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/discolab/disco/controllers"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/datasource"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/runexec"
)

type managerOptions struct {
	metricsAddr   string
	probeAddr     string
	leaderElect   bool
	leaderNS      string
	blobURL       string
	dsn           string
	ledgerKeyPath string
	executor      string
	engineImage   string
	engineVolume  string
	engineCPU     string
	engineMemory  string
	verbose       bool
	webhooks      bool
	webhookPort   int
	webhookNS     string
	webhookCerts  string
	components    []string
	sourceRoot    string
	s3Endpoints   []string

	gcsEndpoints, azureEndpoints []string // endpoints gs:// and azblob:// sources may name
}

// sources is how the manager opens datasets' spec.source: ConfigMaps and Secrets read
// uncached (get only), file:// under --dataset-source-root, s3 endpoints the admin lists.
func (o managerOptions) sources(mgr ctrl.Manager) (datasource.Opener, error) {
	root := o.sourceRoot
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return datasource.Opener{}, fmt.Errorf("--dataset-source-root: %w", err)
		}
		root = abs
	}
	return datasource.Opener{Reader: mgr.GetAPIReader(), FileRoot: root, S3Endpoints: o.s3Endpoints,
		GCSEndpoints: o.gcsEndpoints, AzureEndpoints: o.azureEndpoints}, nil
}

func newManagerCommand() *cobra.Command {
	o := managerOptions{}
	cmd := &cobra.Command{
		Use:   "manager",
		Short: "Run the controllers in a cluster (leader-elected), with metrics and health probes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runManager(ctx, o)
		},
	}
	cmd.Flags().StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "address of the Prometheus metrics endpoint (0 disables)")
	cmd.Flags().StringVar(&o.probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	cmd.Flags().BoolVar(&o.leaderElect, "leader-elect", true, "elect a leader so only one replica reconciles")
	cmd.Flags().StringVar(&o.leaderNS, "leader-election-namespace", "", "namespace of the leader lease (default: the pod's)")
	cmd.Flags().StringVar(&o.blobURL, "blob-url", os.Getenv("DISCO_BLOB_URL"), "blob store for datasets and results (file:///dir or s3://bucket?...); empty disables profiling")
	cmd.Flags().StringVar(&o.dsn, "store-dsn", os.Getenv("DISCO_STORE_DSN"), "SQL store (ledger, webhook outbox); with --blob-url it enables run execution")
	cmd.Flags().StringVar(&o.ledgerKeyPath, "ledger-key", "/var/run/disco/ledger.key", "ed25519 key file that signs ledger checkpoints")
	cmd.Flags().StringVar(&o.executor, "executor", "job", "how runs execute: job (a batch/v1 Job per run) or local (in this process)")
	cmd.Flags().StringVar(&o.engineImage, "engine-image", os.Getenv("DISCO_ENGINE_IMAGE"), "image of run Jobs (the disco image)")
	cmd.Flags().String("engine-service-account", "disco-engine", "unused (kept so existing manifests still start): each run's Job runs as its own service account, disco-engine-<run>, which may write only that run's status")
	cmd.Flags().StringVar(&o.engineVolume, "engine-blob-volume", os.Getenv("DISCO_ENGINE_BLOB_VOLUME"), "with a file:// --blob-url: a core/v1 VolumeSource as JSON (hostPath, nfs, csi) that run Jobs mount at the blob directory")
	cmd.Flags().StringVar(&o.engineCPU, "engine-cpu", os.Getenv("DISCO_ENGINE_CPU"), "CPU request of a run Job's engine (default 1)")
	cmd.Flags().StringVar(&o.engineMemory, "engine-memory", os.Getenv("DISCO_ENGINE_MEMORY"), "memory request and limit of a run Job's engine (default 1Gi)")
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "log at info level")
	cmd.Flags().BoolVar(&o.webhooks, "webhooks", true, "serve the admission webhooks that hold governance, budgets and tenancy for kubectl writers")
	cmd.Flags().IntVar(&o.webhookPort, "webhook-port", 9443, "port of the admission webhook server")
	cmd.Flags().StringVar(&o.webhookNS, "webhook-namespace", podNamespace(), "namespace of the webhook Service and certificate Secret (default: $POD_NAMESPACE)")
	cmd.Flags().StringVar(&o.webhookCerts, "webhook-cert-dir", "/tmp/k8s-webhook-server/serving-certs", "where the webhook serving certificate is written")
	cmd.Flags().StringSliceVar(&o.components, "component-user", nil, "users that are disco's own components (default: the disco-manager and disco-apiserver service accounts of the webhook namespace)")
	cmd.Flags().StringVar(&o.sourceRoot, "dataset-source-root", os.Getenv("DISCO_DATASET_SOURCE_ROOT"), "directory file:// dataset sources are read from, one subdirectory per namespace; empty refuses file:// sources")
	cmd.Flags().StringSliceVar(&o.s3Endpoints, "dataset-source-s3-endpoints", nil, "S3-compatible endpoints (scheme://host[:port]) a dataset's s3:// source may name with ?endpoint=; AWS is always allowed")
	cmd.Flags().StringSliceVar(&o.gcsEndpoints, "dataset-source-gcs-endpoints", nil, "Cloud Storage endpoints (scheme://host[:port]) a dataset's gs:// source may name with ?endpoint=; storage.googleapis.com is always allowed")
	cmd.Flags().StringSliceVar(&o.azureEndpoints, "dataset-source-azblob-endpoints", nil, "Blob service URLs (scheme://host[:port][/account]) a dataset's azblob:// source may name with ?endpoint=; <account>.blob.core.windows.net is always allowed")
	return cmd
}

func runManager(ctx context.Context, o managerOptions) error {
	setupLogging(os.Stderr, o.verbose)
	scheme, cfg, err := clusterClient()
	if err != nil {
		return err
	}
	ws := webhook.NewServer(webhook.Options{Port: o.webhookPort, CertDir: o.webhookCerts})
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme,
		Cache:  index.ManagerCacheOptions(),
		// Metrics and probes are served by opsServer (every timeout set), not by
		// controller-runtime's own servers (manager_servers.go).
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  "0",
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "disco-manager.discovery.disco.dev",
		LeaderElectionNamespace: o.leaderNS,
		WebhookServer:           ws,
	})
	if err != nil {
		return err
	}
	if o.webhooks {
		components := o.components
		if len(components) == 0 {
			components = defaultComponents(o.webhookNS)
		}
		if err := setupWebhooks(mgr, o.webhookNS, o.webhookCerts, components); err != nil {
			return err
		}
	}
	if err := index.RegisterForManager(ctx, mgr.GetFieldIndexer()); err != nil {
		return err
	}
	switch {
	case o.blobURL != "" && o.dsn != "":
		b, err := openBackends(ctx, o.dsn, o.blobURL, o.ledgerKeyPath)
		if err != nil {
			return err
		}
		defer b.close()
		var executor runexec.RunExecutor
		switch o.executor {
		case "local":
			executor = &runexec.LocalExecutor{Exec: &runexec.Execution{Client: mgr.GetClient(), Blob: b.blob}}
		case "job":
			if o.engineImage == "" {
				return errors.New("--engine-image (or DISCO_ENGINE_IMAGE) is required with --executor=job")
			}
			vol, err := parseVolumeSource(o.engineVolume)
			if err != nil {
				return fmt.Errorf("--engine-blob-volume: %w", err)
			}
			cpu, mem, err := engineResources(o.engineCPU, o.engineMemory)
			if err != nil {
				return err
			}
			executor = &runexec.JobExecutor{Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Image: o.engineImage, BlobURL: o.blobURL, BlobVolume: vol,
				CPU: cpu, Memory: mem}
		default:
			return fmt.Errorf("--executor %q: use job or local", o.executor)
		}
		sources, err := o.sources(mgr)
		if err != nil {
			return err
		}
		if err := setupControllers(ctx, mgr, b, "", sources, executor, false); err != nil {
			return err
		}
	case o.blobURL != "":
		b, err := blob.Open(ctx, o.blobURL)
		if err != nil {
			return err
		}
		defer b.Close()
		sources, err := o.sources(mgr)
		if err != nil {
			return err
		}
		if err := controllers.Setup(ctx, mgr, controllers.Options{Profiler: &controllers.BlobProfiler{Blob: b, Sources: sources}, Blob: b, SkipIndexes: true}); err != nil {
			return err
		}
	default:
		// Without stores the controllers keep status only; runs wait with a NoExecutor condition.
		if err := controllers.Setup(ctx, mgr, controllers.Options{SkipIndexes: true}); err != nil {
			return err
		}
	}
	if err := addOpsServers(mgr, o.metricsAddr, o.probeAddr, readyChecks(ws, o.webhooks)); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
