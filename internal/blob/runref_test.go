package blob_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/discolab/disco/internal/blob"
)

// RunRefOf names a run's blobs from the object itself: its namespace, name and uid, and for
// the earlier layout its creation time and status.resultsKey.
func TestRunRefOf(t *testing.T) {
	created := time.Unix(1_700_000_000, 0)
	run := &metav1.ObjectMeta{Namespace: "disco-a", Name: "run-x", UID: types.UID("uid-1"), CreationTimestamp: metav1.NewTime(created)}
	got := blob.RunRefOf("ten_a", run, "runs/run-x/results.json")
	want := blob.RunRef{TenantID: "ten_a", Namespace: "disco-a", Name: "run-x", UID: "uid-1", Created: created, StatusResultsKey: "runs/run-x/results.json"}
	if got != want {
		t.Fatalf("RunRefOf = %+v, want %+v", got, want)
	}
	if got.Results() != blob.RunResultsKey("ten_a", "disco-a", "run-x", "uid-1") {
		t.Errorf("results key %s", got.Results())
	}
}
