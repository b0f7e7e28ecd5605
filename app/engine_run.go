package app

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/runexec"
)

// newEngineRunCommand is what a run's Job executes: it reads the Run, runs the engine on
// its dataset from the blob store, reports progress into Run.status and stores the results,
// exactly as the in-process executor of `disco dev` does. It runs as the run's own engine
// identity, which may write only that run's status (issue 17 item 2): it leaves finishing
// and charging the run to the controller.
func newEngineRunCommand() *cobra.Command {
	var namespace, name, tenantID, blobURL, scratch string
	var timeLimit time.Duration
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Execute a Run object (what a run's Job runs in a cluster)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			// The engine command silences cobra; print the one error line here.
			defer func() {
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "disco engine run: %v\n", err)
				}
			}()
			if namespace == "" || name == "" || blobURL == "" {
				return errors.New("--namespace, --run and --blob-url are required")
			}
			ctx := cmd.Context()
			c, err := directClient()
			if err != nil {
				return err
			}
			b, err := blob.Open(ctx, blobURL)
			if err != nil {
				return err
			}
			defer b.Close()
			run := &discov1.Run{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, run); err != nil {
				return fmt.Errorf("run %s/%s: %w", namespace, name, err)
			}
			exec := &runexec.Execution{Client: c, Blob: b, ScratchDir: scratch, TimeLimit: timeLimit,
				Isolated: true, TenantID: tenantID}
			return exec.Execute(ctx, run)
		},
	}
	cmd.Flags().StringVar(&namespace, "namespace", "", "namespace of the Run")
	cmd.Flags().StringVar(&name, "run", "", "object name of the Run (run-...)")
	cmd.Flags().StringVar(&tenantID, "tenant", "", "tenant of the Run's namespace (ten_...); its blob keys are under runs/<tenant>/")
	cmd.Flags().StringVar(&blobURL, "blob-url", os.Getenv("DISCO_BLOB_URL"), "blob store holding datasets and results")
	cmd.Flags().StringVar(&scratch, "scratch-dir", "", "where the dataset is downloaded (default: the OS temp dir)")
	cmd.Flags().DurationVar(&timeLimit, "time-limit", runexec.DefaultRunTimeLimit, "engine time limit")
	return cmd
}
