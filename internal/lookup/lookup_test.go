package lookup

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

func TestByIDFindsRESTAndHumanNamedObjectsButNotCopiedLabels(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	rest := ids.New(ids.Project)
	human := discov1.PublicIDFor(ids.Project, "ns", "free-fall")
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		&discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(rest), Namespace: "ns"}},
		&discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "free-fall", Namespace: "ns", Labels: map[string]string{discov1.LabelID: human}}},
		// A label copied onto another object does not make it that object.
		&discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "impostor", Namespace: "ns", Labels: map[string]string{discov1.LabelID: rest}}},
	).Build()
	ctx := context.Background()
	for id, want := range map[string]string{rest: ids.ToName(rest), human: "free-fall"} {
		p := &discov1.Project{}
		if err := ByID(ctx, c, "ns", id, p); err != nil || p.Name != want {
			t.Errorf("ByID(%s) = %q, %v; want %q", id, p.Name, err, want)
		}
	}
	if err := ByLabel(ctx, c, "ns", rest, &discov1.Project{}); !apierrors.IsNotFound(err) {
		t.Errorf("ByLabel on a copied label: %v, want NotFound", err)
	}
	if err := ByID(ctx, c, "other", human, &discov1.Project{}); !apierrors.IsNotFound(err) {
		t.Errorf("ByID in another namespace: %v, want NotFound", err)
	}
}
