package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// newBootstrapCommand holds what an installation in a cluster needs once, and what
// `disco dev` does for itself at startup: the ledger signing key, the default tenant and
// its first admin API key (issue 13).
func newBootstrapCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bootstrap",
		Short: "Set up an installation in a cluster: ledger signing key, default tenant, first admin API key",
	}
	cmd.AddCommand(newBootstrapLedgerKeyCommand(), newBootstrapAdminKeyCommand())
	return cmd
}

func newBootstrapLedgerKeyCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "ledger-key FILE",
		Short: "Create the ledger's Ed25519 signing key in FILE (kept if it exists) and print its verifier key",
		Long: `Create the note signing key that signs the Evidence Ledger's checkpoints, for the Secret
the manager and the facade mount (kubectl create secret generic disco-ledger-key
--from-file=ledger.key=FILE). An existing FILE is kept. The verifier key printed on stdout
is public: keep a copy to check checkpoints with 'disco ledger verify --key'.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := ledger.LoadOrCreateKey(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), key.VerifierKey)
			return nil
		},
	}
}

// adminKey is what `disco bootstrap admin-key` prints: the fields of `disco dev`'s
// credentials.json that the cluster knows.
type adminKey struct {
	APIKey    string `json:"api_key"`
	TenantID  string `json:"tenant_id"`
	Namespace string `json:"namespace"`
}

func newBootstrapAdminKeyCommand() *cobra.Command {
	var dsn string
	cmd := &cobra.Command{
		Use:   "admin-key",
		Short: "Create the default tenant and an admin API key with every scope; print them as JSON",
		Long: `Make sure the cluster has the default tenant (the one labelled ` + LabelDefaultTenant + `,
created on first use as 'disco dev' does), wait until the manager has made its namespace,
and mint an admin API key with every scope for it in the SQL store. Any admin key this
command minted before for the tenant is revoked, so run it again to rotate the key. The
tenant's admin user is created on first use; its password is shown once, on stderr.

It needs the cluster (in a pod, its service account; outside, a kubeconfig) and the SQL
store the facade uses. In a cluster, run it in a facade pod:

  kubectl -n disco-system exec deploy/disco-apiserver -- /disco bootstrap admin-key

It prints {"api_key": ..., "tenant_id": ..., "namespace": ...} on stdout.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dsn == "" {
				return errors.New("--store-dsn (or DISCO_STORE_DSN) is required")
			}
			setupLogging(cmd.ErrOrStderr(), false)
			ctx := cmd.Context()
			c, err := directClient()
			if err != nil {
				return err
			}
			st, err := store.Open(ctx, dsn)
			if err != nil {
				return fmt.Errorf("open the SQL store: %w", err)
			}
			defer st.Close()
			out, err := bootstrapAdminKey(ctx, c, st, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
	cmd.Flags().StringVar(&dsn, "store-dsn", os.Getenv("DISCO_STORE_DSN"), "SQL store of the facade: postgres://... or a SQLite path")
	return cmd
}

// bootstrapAdminKey is `disco bootstrap admin-key` on cluster c and store st: the default
// tenant, its admin user (its password printed once on stderr) and a newly minted admin
// key. No earlier key is passed to apiserver.Bootstrap, whatever lies beside a SQLite
// store: the command rotates the key, and the key of a `disco dev` data dir is revoked.
func bootstrapAdminKey(ctx context.Context, c client.Client, st *store.Store, stderr io.Writer) (adminKey, error) {
	tenantID, err := ensureDefaultTenant(ctx, c)
	if err != nil {
		return adminKey{}, err
	}
	ns, err := waitTenantNamespace(ctx, c, tenantID)
	if err != nil {
		return adminKey{}, fmt.Errorf("%w (is the manager running?)", err)
	}
	username, password, created, err := apiserver.BootstrapUser(ctx, st, tenantID)
	if err != nil {
		return adminKey{}, err
	}
	if created {
		fmt.Fprintf(stderr, "created the tenant's admin user %s with password %s (shown only now)\n", username, password)
	}
	key, err := apiserver.Bootstrap(ctx, apiserver.Options{Store: st, Logger: ctrl.Log.WithName("bootstrap")}, tenantID, "")
	if err != nil {
		return adminKey{}, fmt.Errorf("create the admin API key: %w", err)
	}
	return adminKey{APIKey: key, TenantID: tenantID, Namespace: ns}, nil
}

// keptAdminKey is the admin key `disco dev` wrote to dir's credentials.json for the tenant
// on an earlier start, which it passes to apiserver.Bootstrap so that restarts keep the
// key; "" when there is none.
func keptAdminKey(dir, tenantID string) string {
	raw, err := readBounded(filepath.Join(dir, "credentials.json"), maxCredentialsFile)
	if err != nil {
		return ""
	}
	var c credentials
	if json.Unmarshal(raw, &c) != nil || c.TenantID != tenantID {
		return ""
	}
	return c.APIKey
}
