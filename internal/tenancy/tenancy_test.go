package tenancy_test

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/tenancy"
)

// A tenant is found by its id whether it is named by the id (made through disco) or by a
// person (applied with kubectl, labelled with its id by the controller); a label copied onto
// another Tenant does not make that Tenant answer for the id.
func TestGetFindsTenantsByIDWhateverTheirName(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	byID := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant))}}
	lab := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "physics-lab"}}
	lab.Labels = map[string]string{discov1.LabelID: lab.ID()}
	unlabelled := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "chem-lab"}}
	forger := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "forger", Labels: map[string]string{discov1.LabelID: unlabelled.ID()}}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(byID, lab, unlabelled, forger).Build()
	ctx := context.Background()

	if lab.ID() == ids.FromName(lab.Name) || !ids.Valid(ids.Tenant, lab.ID()) {
		t.Fatalf("a human-named tenant's id %q is not a derived tenant id", lab.ID())
	}
	for _, want := range []*discov1.Tenant{byID, lab} {
		got := &discov1.Tenant{}
		if err := tenancy.Get(ctx, c, want.ID(), got); err != nil {
			t.Fatalf("Get(%s): %v", want.ID(), err)
		}
		if got.Name != want.Name {
			t.Fatalf("Get(%s) found tenant %q, want %q", want.ID(), got.Name, want.Name)
		}
	}
	for _, id := range []string{unlabelled.ID(), ids.New(ids.Tenant), "not-an-id", ""} {
		if err := tenancy.Get(ctx, c, id, &discov1.Tenant{}); !apierrors.IsNotFound(err) {
			t.Fatalf("Get(%q): %v, want NotFound", id, err)
		}
	}
}
