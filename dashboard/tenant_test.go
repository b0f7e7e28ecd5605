package dashboard_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/live"
)

// foreignProject creates a second tenant with a project through the admin kubeconfig of
// disco dev, and returns the project's id: the dashboard's user, of the first tenant,
// must not see it.
func foreignProject(t *testing.T, kubeconfig string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kc := live.KubeconfigClient(t, kubeconfig)
	tid := ids.New(ids.Tenant)
	tenant := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(tid)},
		Spec: discov1.TenantSpec{DisplayName: "other", Tier: discov1.TenantTierFree}}
	if err := kc.Create(ctx, tenant); err != nil {
		t.Fatalf("create a second tenant: %v", err)
	}
	for tenant.Status.Namespace == "" {
		if ctx.Err() != nil {
			t.Fatal("the second tenant's namespace was not made")
		}
		time.Sleep(200 * time.Millisecond)
		_ = kc.Get(ctx, client.ObjectKeyFromObject(tenant), tenant)
	}
	pid := ids.New(ids.Project)
	p := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(pid), Namespace: tenant.Status.Namespace},
		Spec: discov1.ProjectSpec{DisplayName: "foreign", TenantID: tid}}
	if err := kc.Create(ctx, p); err != nil {
		t.Fatalf("create the second tenant's project: %v", err)
	}
	return pid
}
