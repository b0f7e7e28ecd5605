package auth

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/internal/ids"
)

// Access and Covers are tested without HTTP: what a caller may reach and manage.

const (
	tenantA  = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	tenantB  = "ten_bbbbbbbbbbbbbbbbbbbbbbbbbb"
	projectA = "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	projectB = "proj_bbbbbbbbbbbbbbbbbbbbbbbbbb"
	campA    = "camp_aaaaaaaaaaaaaaaaaaaaaaaaaa"
)

func project(id, tenant, ns string) *discov1.Project {
	return &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: ns}, Spec: discov1.ProjectSpec{TenantID: tenant}}
}

func access(t *testing.T) Access {
	t.Helper()
	sc := runtime.NewScheme()
	if err := discov1.AddToScheme(sc); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(sc).WithObjects(
		project(projectA, tenantA, "ns-a"),
		project(projectB, tenantB, "ns-b"),
		&discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(campA), Namespace: "ns-a"}, Spec: discov1.CampaignSpec{ProjectID: projectA}},
	).Build()
	return Access{Reader: c}
}

func as(tenant, ns string, projects ...string) context.Context {
	return WithCaller(context.Background(), &Caller{
		Principal: &Principal{TenantID: tenant, Scopes: All, ProjectIDs: projects},
		Tenant:    &Tenant{ID: tenant, Namespace: ns},
	})
}

func wantNotFound(t *testing.T, what string, err error) {
	t.Helper()
	var ae *apierror.Error
	if !errors.As(err, &ae) || ae.GetStatus() != 404 {
		t.Fatalf("%s: %v, want 404 (never 403 across tenants)", what, err)
	}
}

func TestAccessAnswersNotFoundAcrossTenantsAndRestrictions(t *testing.T) {
	a := access(t)
	if p, err := a.Project(as(tenantA, "ns-a"), projectA); err != nil || p.Spec.TenantID != tenantA {
		t.Fatalf("own project: %v", err)
	}
	if _, c, err := a.Campaign(as(tenantA, "ns-a"), projectA, campA); err != nil || c.Spec.ProjectID != projectA {
		t.Fatalf("own campaign: %v", err)
	}
	// Another tenant's project, read in the caller's namespace or even if the object
	// were in it: not found.
	_, err := a.Project(as(tenantA, "ns-a"), projectB)
	wantNotFound(t, "another tenant's project", err)
	_, err = a.Project(as(tenantA, "ns-b"), projectB)
	wantNotFound(t, "a project of another tenant in a namespace the caller names", err)
	// A key restricted to other projects of the same tenant.
	_, err = a.Project(as(tenantA, "ns-a", projectB), projectA)
	wantNotFound(t, "a project outside the key's restriction", err)
	// A campaign under another project, and ids of the wrong kind.
	_, _, err = a.Campaign(as(tenantA, "ns-a"), projectB, campA)
	wantNotFound(t, "a campaign under another tenant's project", err)
	wantNotFound(t, "a malformed id", a.GetIn(as(tenantA, "ns-a"), "project", ids.Project, campA, &discov1.Project{}))
}

func TestCoversOnlyCredentialsNoStrongerThanTheCaller(t *testing.T) {
	admin := &Principal{Scopes: All}
	reader := &Principal{Scopes: []string{ProjectsRead, RunsRead}}
	restricted := &Principal{Scopes: All, ProjectIDs: []string{projectA}}
	for _, c := range []struct {
		name     string
		p        *Principal
		scopes   []string
		projects []string
		want     bool
	}{
		{"admin, any grant", admin, All, nil, true},
		{"reader, its own scopes", reader, []string{RunsRead}, []string{projectB}, true},
		{"reader, a scope it lacks", reader, []string{RunsWrite}, nil, false},
		{"restricted, its projects", restricted, []string{RunsRead}, []string{projectA}, true},
		{"restricted, every project", restricted, []string{RunsRead}, nil, false},
		{"restricted, another project", restricted, []string{RunsRead}, []string{projectA, projectB}, false},
	} {
		if got := c.p.Covers(c.scopes, c.projects); got != c.want {
			t.Errorf("%s: Covers = %v, want %v", c.name, got, c.want)
		}
	}
}
