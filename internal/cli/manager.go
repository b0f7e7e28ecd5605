package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/discolab/disco/controllers"
	"github.com/discolab/disco/internal/blob"
)

type managerOptions struct {
	metricsAddr string
	probeAddr   string
	leaderElect bool
	leaderNS    string
	blobURL     string
	verbose     bool
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
	cmd.Flags().BoolVarP(&o.verbose, "verbose", "v", false, "log at info level")
	return cmd
}

func runManager(ctx context.Context, o managerOptions) error {
	setupLogging(os.Stderr, o.verbose)
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("find the cluster: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: o.metricsAddr},
		HealthProbeBindAddress:  o.probeAddr,
		LeaderElection:          o.leaderElect,
		LeaderElectionID:        "disco-manager.discovery.disco.dev",
		LeaderElectionNamespace: o.leaderNS,
	})
	if err != nil {
		return err
	}
	opts := controllers.Options{}
	if o.blobURL != "" {
		b, err := blob.Open(ctx, o.blobURL)
		if err != nil {
			return err
		}
		defer b.Close()
		opts.Profiler = &controllers.BlobProfiler{Blob: b}
	}
	if err := controllers.Setup(ctx, mgr, opts); err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		return err
	}
	return mgr.Start(ctx)
}
