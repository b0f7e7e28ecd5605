package app

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// newScheme knows the built-in kinds and disco's.
func newScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	if err := discov1.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// clusterClient finds the cluster (kubeconfig or in-cluster) and returns its config and the
// scheme every disco role uses.
func clusterClient() (*runtime.Scheme, *rest.Config, error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("find the cluster: %w", err)
	}
	return scheme, cfg, nil
}

// directClient is an uncached client of the cluster clusterClient finds, for commands that
// run once rather than a manager.
func directClient() (client.Client, error) {
	scheme, cfg, err := clusterClient()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme})
}

// backends are the stores every role shares: SQL, blobs and the ledger.
type backends struct {
	store  *store.Store
	blob   *blob.Bucket
	ledger *ledger.Ledger
}

func openBackends(ctx context.Context, dsn, blobURL, ledgerKeyPath string) (*backends, error) {
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("open the SQL store: %w", err)
	}
	b, err := blob.Open(ctx, blobURL)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("open the blob store %s: %w", blobURL, err)
	}
	key, err := ledger.LoadOrCreateKey(ledgerKeyPath)
	if err != nil {
		st.Close()
		b.Close()
		return nil, fmt.Errorf("load the ledger signing key: %w", err)
	}
	led, err := ledger.New(st, key.Signer)
	if err != nil {
		st.Close()
		b.Close()
		return nil, err
	}
	return &backends{store: st, blob: b, ledger: led}, nil
}

func (b *backends) close() {
	b.blob.Close()
	b.store.Close()
}
