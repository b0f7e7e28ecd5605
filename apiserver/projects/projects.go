package projects

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
)

// Wire types.

// Deps is what the projects room needs.
type Deps struct {
	Kit *resource.Kit
	// Ledger records governance changes; nil records nothing.
	Ledger *ledger.Ledger
}

type handlers struct {
	Deps
	policy  Policy
	service *Service
}

// Register adds the project operations under /projects.
func Register(api huma.API, d Deps) {
	policy := Policy(d)
	s := &handlers{Deps: d, policy: policy, service: &Service{Kit: d.Kit, Policy: policy}}
	g := huma.NewGroup(api, "/projects")
	transport.Register(g, huma.Operation{
		OperationID: "createProject", Method: http.MethodPost, Path: "",
		Summary: "Create a project", Tags: []string{"Projects"}, DefaultStatus: http.StatusCreated,
		Description: "Governance settings other than the defaults (promotion_ceiling validate, truth_dial_threshold 0.7, " +
			"require_negative_controls true) also need the scope `" + auth.GovernanceWrite + "`, and are recorded in the " +
			"project's ledger as a policy_changed entry.",
		Errors: []int{http.StatusConflict},
	}, auth.ProjectsWrite, s.createProject)

	transport.Register(g, huma.Operation{
		OperationID: "listProjects", Method: http.MethodGet, Path: "",
		Summary: "List projects", Tags: []string{"Projects"},
	}, auth.ProjectsRead, s.listProjects)

	transport.Register(g, huma.Operation{
		OperationID: "getProject", Method: http.MethodGet, Path: "/{project_id}",
		Summary: "Get a project", Tags: []string{"Projects"}, Errors: []int{http.StatusNotFound},
	}, auth.ProjectsRead, s.getProject)

	transport.Register(g, huma.Operation{
		OperationID: "updateProject", Method: http.MethodPatch, Path: "/{project_id}",
		Summary: "Update a project", Tags: []string{"Projects"},
		Description: "The body is a JSON merge patch (RFC 7396) over name, description, settings and status; " +
			"null resets a setting to its default. Other fields are ignored. The patch applies to the project as it is " +
			"when the request arrives. To change only the version you read, send its ETag in If-Match: if the project " +
			"has changed since, the answer is 412 precondition_failed (RFC 9110, section 13.1.1). Changing " +
			"settings.governance also needs the scope `" + auth.GovernanceWrite + "` and is recorded in the project's " +
			"ledger as a policy_changed entry with the settings before and after.",
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed, http.StatusUnsupportedMediaType},
	}, auth.ProjectsWrite, s.updateProject)
}

func (s *handlers) createProject(ctx context.Context, in *struct {
	Body projectCreate
}) (*projectOutput, error) {
	p, t := auth.Who(ctx)
	if p.Restricted() {
		// A key limited to some projects could not see what it created.
		return nil, apierror.New(http.StatusForbidden, apierror.CodeForbidden, "an API key restricted to projects cannot create projects")
	}
	if err := transport.CheckText(transport.NameText("body.name", in.Body.Name), transport.ProseText("body.description", in.Body.Description)); err != nil {
		return nil, err
	}
	id := ids.New(ids.Project)
	now := s.Kit.Now().UTC()
	proj := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{
			Name: ids.ToName(id), Namespace: t.Namespace,
			Labels:      resource.Labels(t.ID, discov1.LabelProject, id),
			Annotations: map[string]string{annotationUpdatedAt: now.Format(time.RFC3339Nano)},
		},
		Spec: discov1.ProjectSpec{
			DisplayName: in.Body.Name,
			Description: in.Body.Description,
			TenantID:    t.ID,
			State:       discov1.ProjectActive,
			CreatedBy:   p.Actor,
		},
	}
	if st := in.Body.Settings; st != nil {
		proj.Spec.Settings.DefaultMode = discov1.Mode(st.DefaultMode)
		if g := st.Governance; g != nil {
			proj.Spec.Settings.Governance = discov1.GovernanceSettings{
				PromotionCeiling:        discov1.Tier(g.PromotionCeiling),
				RequireNegativeControls: g.RequireNegativeControls,
				TruthDialThreshold:      g.TruthDialThreshold,
			}
		}
	}
	// A new project starts from the default governance; anything else is a change of it.
	if err := s.policy.CreateGoverned(ctx, proj, PolicyChange{
		ProjectID: id, Resource: "project", ID: id, Field: "body.settings.governance",
		Before: GovernanceOf(discov1.GovernanceSettings{}), After: GovernanceOf(proj.Spec.Settings.Governance),
	}); err != nil {
		return nil, err
	}
	return &projectOutput{Location: s.Kit.BaseURL + "/projects/" + id, ETag: resource.ETag(proj), Body: Of(proj)}, nil
}

type listProjectsInput struct {
	resource.PageParams
	Sort   string `query:"sort" enum:"created_at,updated_at,name" doc:"Field to sort by; default created_at."`
	Status string `query:"status" enum:"active,archived" doc:"Only projects with this status."`
}

var projectSort = pagination.Spec[*discov1.Project]{
	Name: "projects",
	Fields: map[string]func(*discov1.Project) pagination.Key{
		"created_at": func(p *discov1.Project) pagination.Key { return resource.CreatedKey(p) },
		"updated_at": func(p *discov1.Project) pagination.Key { return pagination.Time(updatedAt(p)) },
		"name":       func(p *discov1.Project) pagination.Key { return pagination.String(strings.ToLower(p.Spec.DisplayName)) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(p *discov1.Project) string { return p.Name },
}

func (s *handlers) listProjects(ctx context.Context, in *listProjectsInput) (*resource.ListOutput[Project], error) {
	p, t := auth.Who(ctx)
	var list discov1.ProjectList
	if err := s.Kit.List(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Tenant: t.ID}); err != nil {
		return nil, apierror.Internal(err)
	}
	items := make([]*discov1.Project, 0, len(list.Items))
	for i := range list.Items {
		pr := &list.Items[i]
		if pr.DeletionTimestamp != nil || !p.AllowsProject(pr.ID()) || (in.Status != "" && Status(pr) != in.Status) {
			continue
		}
		items = append(items, pr)
	}
	return resource.Paginate(s.Kit, items, projectSort, in.PageParams, in.Sort, resource.FilterKey("status", in.Status), Of)
}

func (s *handlers) getProject(ctx context.Context, in *resource.ProjectPath) (*projectBody, error) {
	proj, err := s.Kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &projectBody{ETag: resource.ETag(proj), Body: Of(proj)}, nil
}

func (s *handlers) updateProject(ctx context.Context, in *struct {
	resource.ProjectPath
	IfMatch string `header:"If-Match" maxLength:"1024" doc:"Update only if the project still has one of these entity tags (its ETag); otherwise 412."`
	Body    projectPatch
	RawBody []byte
}) (*projectBody, error) {
	cached, err := s.Kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	// Fields the contract does not let PATCH change are ignored, as unknown fields are.
	cond, patch, err := resource.ReadPatch(in.IfMatch, in.RawBody, "name", "description", "status", "settings")
	if err != nil {
		return nil, err
	}
	if v, ok := patch["name"]; ok && v == nil {
		return nil, apierror.Invalid("body.name", "cannot be null: a project needs a name")
	}

	upd, err := s.service.Update(ctx, cached, cond, patch)
	if err != nil {
		return nil, err
	}
	return &projectBody{ETag: resource.ETag(upd), Body: Of(upd)}, nil
}
