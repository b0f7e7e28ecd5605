package index

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// recorder is a FieldIndexer that records what is indexed.
type recorder map[string]bool

func (r recorder) IndexField(_ context.Context, obj client.Object, field string, _ client.IndexerFunc) error {
	kind := "other"
	switch obj.(type) {
	case *discov1.Claim:
		kind = "Claim"
	case *discov1.Run:
		kind = "Run"
	}
	r[kind+" "+field] = true
	return nil
}

// The manager keeps the indexes its controllers list by (a campaign's runs) and leaves the
// Claim indexes, which only the facade lists by, to the facade.
func TestRegisterForManagerLeavesTheClaimIndexesOut(t *testing.T) {
	all, manager := recorder{}, recorder{}
	if err := Register(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	if err := RegisterForManager(context.Background(), manager); err != nil {
		t.Fatal(err)
	}
	if !all["Claim "+Run] || !all["Run "+Campaign] {
		t.Fatalf("Register indexed %v", all)
	}
	for key := range manager {
		if key[:5] == "Claim" {
			t.Errorf("the manager indexes %s", key)
		}
	}
	if !manager["Run "+Campaign] || len(manager) != len(all)-5 {
		t.Errorf("the manager indexes %v, want every index but the five of Claims", manager)
	}
	if ManagerCacheOptions().DefaultTransform == nil || CacheOptions().DefaultTransform != nil {
		t.Error("only the manager's cache strips managed fields from every kind")
	}
}
