package datasets

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// A Dataset applied with kubectl from a source shows its object name and the size and hash
// of the file the controller fetched; an uploaded one shows what its upload recorded.
func TestDatasetOfShowsTheFileItHolds(t *testing.T) {
	fetched := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "lens-table", Namespace: "optics"},
		Spec: discov1.DatasetSpec{ProjectRef: &discov1.ObjectRef{Name: "lenses"}, Format: "csv",
			Source: &discov1.DatasetSource{ConfigMapRef: &discov1.ConfigMapKeyRef{Name: "t", Key: "t.csv"}}},
		Status: discov1.DatasetStatus{Phase: discov1.DatasetReady,
			Source: &discov1.FetchedSource{BlobKey: "datasets/ten_a/optics/sources/lens-table/u/data", SizeBytes: 42, SHA256: "ab"}}}
	if got := Of(fetched); got.Name != "lens-table" || got.SizeBytes != 42 || got.SHA256 != "ab" {
		t.Errorf("fetched dataset shows name %q, %d bytes, sha %q", got.Name, got.SizeBytes, got.SHA256)
	}
	fetched.Status.Source = nil // not fetched yet
	if got := Of(fetched); got.SizeBytes != 0 || got.SHA256 != "" {
		t.Errorf("unfetched dataset shows %d bytes, sha %q", got.SizeBytes, got.SHA256)
	}
	uploaded := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "ds-x", Namespace: "optics"},
		Spec: discov1.DatasetSpec{ProjectID: "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa", DisplayName: "sachs.csv", Format: "csv",
			BlobKey: "k", SizeBytes: 7, SHA256: "cd"}}
	if got := Of(uploaded); got.Name != "sachs.csv" || got.SizeBytes != 7 || got.SHA256 != "cd" {
		t.Errorf("uploaded dataset shows name %q, %d bytes, sha %q", got.Name, got.SizeBytes, got.SHA256)
	}
}
