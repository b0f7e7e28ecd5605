package runexec

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
)

// Issue 17 item 2: status.resultsKey is written by the run's engine; the controller turns
// only the run's own results.json into claims.
func TestReadResultsReadsOnlyTheRunsOwnKey(t *testing.T) {
	ctx := context.Background()
	b, err := blob.Open(ctx, "file://"+filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tenantA, tenantB := ids.New(ids.Tenant), ids.New(ids.Tenant)
	name := ids.ToName(ids.New(ids.Run))
	run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Namespace: "disco-a", Name: name, UID: types.UID("uid-a"),
		CreationTimestamp: metav1.NewTime(time.Now().Add(-time.Hour))}}
	// The same-named run of tenant B, and what else lies in the store.
	other := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Namespace: "disco-b", Name: name, UID: types.UID("uid-b")}}
	own := RunBlobs(run, tenantA).Results()
	foreign := RunBlobs(other, tenantB).Results()
	sameTenantElsewhere := blob.RunResultsKey(tenantA, "disco-b", name, "uid-a")
	for _, key := range []string{own, foreign, sameTenantElsewhere, blob.LegacyRunResultsKey(name), "datasets/ds-x/results.json"} {
		if err := b.Put(ctx, key, []byte(`{"claims":[]}`)); err != nil {
			t.Fatal(err)
		}
	}

	for _, key := range []string{own, blob.LegacyRunResultsKey(name)} {
		run.Status.ResultsKey = key
		if _, err := ReadResults(ctx, b, run); err != nil {
			t.Errorf("own results at %s: %v", key, err)
		}
	}
	for _, key := range []string{foreign, sameTenantElsewhere, "datasets/ds-x/results.json", "",
		"runs/not-a-tenant/disco-a/" + name + "/uid-a/results.json", own + "/../../../../../../" + foreign} {
		run.Status.ResultsKey = key
		if _, err := ReadResults(ctx, b, run); !errors.Is(err, blob.ErrForeignKey) {
			t.Errorf("results at %q: %v, want ErrForeignKey", key, err)
		}
	}
	// A human-named run's legacy key may have been any tenant's.
	human := run.DeepCopy()
	human.Name = "signalling"
	human.Status.ResultsKey = blob.LegacyRunResultsKey(human.Name)
	if err := b.Put(ctx, human.Status.ResultsKey, []byte(`{"claims":[]}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResults(ctx, b, human); !errors.Is(err, blob.ErrForeignKey) {
		t.Errorf("human-named legacy results: %v, want ErrForeignKey", err)
	}
}
