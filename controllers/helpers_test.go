package controllers

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// fakeProfiler marks datasets whose display name starts with "bad" as unusable, and hands
// those whose name starts with "real-", and those with a spec.source, to the blob profiler
// (realProfiler).
type fakeProfiler struct{}

func (fakeProfiler) Profile(ctx context.Context, ds *discov1.Dataset, keys DatasetKeys) (ProfileResult, error) {
	if strings.HasPrefix(ds.Spec.DisplayName, "real-") || ds.Spec.Source != nil {
		return realProfiler().Profile(ctx, ds, keys)
	}
	if strings.HasPrefix(ds.Spec.DisplayName, "bad") {
		return ProfileResult{}, &ProfileError{Message: "row 3 has 2 fields, expected 3"}
	}
	return ProfileResult{Rows: 100, Columns: 3, Variables: []string{"a", "b", "c"}, ProfileKey: keys.Profile}, nil
}

// update applies change to a fresh read of obj and writes it, again after a write conflict
// with a controller's status write (which bumps the resourceVersion the Update sends).
func update(obj client.Object, change func()) {
	Eventually(func() error {
		if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change()
		return k8sClient.Update(ctx, obj)
	}).Should(Succeed())
}

// newTenant creates a tenant and waits for its namespace.
func newTenant() (*discov1.Tenant, string) {
	t := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant))}, Spec: discov1.TenantSpec{Tier: discov1.TenantTierTeam}}
	Expect(k8sClient.Create(ctx, t)).To(Succeed())
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, objectKey("", ids.FromName(t.Name)), t)).To(Succeed())
		g.Expect(t.Status.Namespace).NotTo(BeEmpty())
	}).Should(Succeed())
	return t, t.Status.Namespace
}

func newProject(tenant *discov1.Tenant, ns string) *discov1.Project {
	id := ids.New(ids.Project)
	p := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: ns, Labels: map[string]string{discov1.LabelProject: id}},
		Spec:       discov1.ProjectSpec{DisplayName: "p", TenantID: ids.FromName(tenant.Name)},
	}
	Expect(k8sClient.Create(ctx, p)).To(Succeed())
	return p
}

// newExecCampaign makes a campaign whose runs the gated test executor really executes.
func newExecCampaign(p *discov1.Project) *discov1.Campaign {
	return createCampaign(p, "exec", 1000, 10, nil)
}

func newCampaign(p *discov1.Project, units int64, maxRuns int32, expires *time.Time) *discov1.Campaign {
	return createCampaign(p, "c", units, maxRuns, expires)
}

func createCampaign(p *discov1.Project, name string, units int64, maxRuns int32, expires *time.Time) *discov1.Campaign {
	id := ids.New(ids.Campaign)
	c := &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: p.Namespace, Labels: map[string]string{discov1.LabelProject: ids.FromName(p.Name)}},
		Spec:       discov1.CampaignSpec{ProjectID: ids.FromName(p.Name), DisplayName: name, Budget: discov1.Budget{ComputeUnits: units, MaxRuns: maxRuns}},
	}
	if expires != nil {
		c.Spec.Budget.ExpiresAt = &metav1.Time{Time: *expires}
	}
	Expect(k8sClient.Create(ctx, c)).To(Succeed())
	return c
}

func newRun(c *discov1.Campaign, estimate int64) *discov1.Run {
	id := ids.New(ids.Run)
	r := &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: c.Namespace, Labels: map[string]string{discov1.LabelProject: c.Spec.ProjectID, discov1.LabelCampaign: ids.FromName(c.Name)}},
		Spec: discov1.RunSpec{ProjectID: c.Spec.ProjectID, CampaignID: ids.FromName(c.Name), Mode: discov1.ModeSymbolic,
			DatasetID: newDatasetObject(c.Namespace, c.Spec.ProjectID), ComputeUnitsEstimated: estimate},
	}
	Expect(k8sClient.Create(ctx, r)).To(Succeed())
	return r
}

// newDatasetObject creates a Dataset of the project, REST-shaped, and returns its id: a run
// waits for its dataset to exist (DatasetNotFound). Its file is never read.
func newDatasetObject(ns, projectID string) string {
	id := ids.New(ids.Dataset)
	ds := &discov1.Dataset{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: ns},
		Spec: discov1.DatasetSpec{ProjectID: projectID, DisplayName: "d", Format: "csv", BlobKey: "datasets/unread/" + id,
			SizeBytes: 1, SHA256: strings.Repeat("0", 64)},
	}
	Expect(k8sClient.Create(ctx, ds)).To(Succeed())
	return id
}
