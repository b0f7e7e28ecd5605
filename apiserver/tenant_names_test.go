package apiserver

import (
	"context"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// A Tenant applied with kubectl under a person's name is found by its derived id, as the
// tenant controller labels it (issue 14, item 6): its API keys authenticate and work in its
// namespace. A Tenant that copies that label onto itself answers for nothing.
func TestHumanNamedTenantsKeysWork(t *testing.T) {
	ctx := context.Background()
	suffix := strings.ToLower(ids.New("x")[2:10])
	lab := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "lab-" + suffix}}
	id := lab.ID()
	ns := "disco-lab-" + suffix
	lab.Labels = map[string]string{discov1.LabelID: id}
	lab.Spec = discov1.TenantSpec{Tier: discov1.TenantTierTeam, Namespace: ns}
	if err := env.direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	if err := env.direct.Create(ctx, lab); err != nil {
		t.Fatal(err)
	}
	key := newKey(t, id, nil)
	created := call(t, http.MethodPost, "/v1/projects", key, map[string]any{"name": "optics"}).expect(t, http.StatusCreated)
	projectID, _ := created.JSON["id"].(string)
	p := &discov1.Project{}
	if err := env.direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: ids.ToName(projectID)}, p); err != nil {
		t.Fatalf("the project is not in the tenant's namespace %s: %v", ns, err)
	}
	call(t, http.MethodGet, "/v1/projects/"+projectID, key, nil).expect(t, http.StatusOK)

	// A forged label does not make another Tenant answer for a human-named tenant's id.
	victim := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "victim-" + suffix}}
	forger := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "forger-" + suffix, Labels: map[string]string{discov1.LabelID: victim.ID()}},
		Spec: discov1.TenantSpec{Tier: discov1.TenantTierTeam, Namespace: ns}}
	if err := env.direct.Create(ctx, forger); err != nil {
		t.Fatal(err)
	}
	call(t, http.MethodGet, "/v1/projects", newKey(t, victim.ID(), nil), nil).expect(t, http.StatusUnauthorized)
}
