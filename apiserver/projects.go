package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
)

// annotationUpdatedAt records the last change made through the facade (Kubernetes keeps
// no such time for the whole object).
const annotationUpdatedAt = "api.disco.dev/updated-at"

// Wire types.

type Governance struct {
	PromotionCeiling        string  `json:"promotion_ceiling" enum:"explore,validate,publish" doc:"Highest tier a claim may be promoted to."`
	RequireNegativeControls bool    `json:"require_negative_controls" doc:"Refuse promotion of claims whose negative controls did not pass."`
	TruthDialThreshold      float64 `json:"truth_dial_threshold" minimum:"0" maximum:"1" doc:"Minimum Truth Dial score for promotion."`
}

type ProjectSettings struct {
	DefaultMode string     `json:"default_mode" enum:"symbolic,neural,neuro_symbolic,causal" doc:"Mode of runs submitted without one."`
	Governance  Governance `json:"governance"`
}

type Project struct {
	ID          string          `json:"id" example:"proj_abcdefghijklmnopqrstuvwxyz"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Status      string          `json:"status" enum:"active,archived"`
	Settings    ProjectSettings `json:"settings"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	CreatedBy   string          `json:"created_by"`
	TenantID    string          `json:"tenant_id"`
}

type governanceInput struct {
	PromotionCeiling        string   `json:"promotion_ceiling,omitempty" enum:"explore,validate,publish"`
	RequireNegativeControls *bool    `json:"require_negative_controls,omitempty"`
	TruthDialThreshold      *float64 `json:"truth_dial_threshold,omitempty" minimum:"0" maximum:"1"`
}

type settingsInput struct {
	DefaultMode string           `json:"default_mode,omitempty" enum:"symbolic,neural,neuro_symbolic,causal"`
	Governance  *governanceInput `json:"governance,omitempty"`
}

type projectCreate struct {
	Name        string         `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Description string         `json:"description,omitempty" maxLength:"4000"`
	Settings    *settingsInput `json:"settings,omitempty"`
}

type projectOutput struct {
	Location string `header:"Location"`
	Body     Project
}

func projectOf(p *discov1.Project) Project {
	g := p.Spec.Settings.Governance
	status := string(p.Spec.State)
	if status == "" {
		status = string(discov1.ProjectActive)
	}
	mode := string(p.Spec.Settings.DefaultMode)
	if mode == "" {
		mode = string(discov1.ModeSymbolic)
	}
	ceiling := string(g.PromotionCeiling)
	if ceiling == "" {
		ceiling = string(discov1.TierValidate)
	}
	return Project{
		ID:          ids.FromName(p.Name),
		Name:        p.Spec.DisplayName,
		Description: p.Spec.Description,
		Status:      status,
		Settings: ProjectSettings{
			DefaultMode: mode,
			Governance: Governance{
				PromotionCeiling:        ceiling,
				RequireNegativeControls: ptr.Deref(g.RequireNegativeControls, true),
				TruthDialThreshold:      ptr.Deref(g.TruthDialThreshold, 0.7),
			},
		},
		CreatedAt: utc(p.CreationTimestamp),
		UpdatedAt: updatedAt(p),
		CreatedBy: p.Spec.CreatedBy,
		TenantID:  p.Spec.TenantID,
	}
}

// updatedAt is the facade's annotation, else the newest managed-fields time, else the
// creation time.
func updatedAt(o client.Object) time.Time {
	if v, ok := o.GetAnnotations()[annotationUpdatedAt]; ok {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t.UTC()
		}
	}
	latest := o.GetCreationTimestamp().Time
	for _, m := range o.GetManagedFields() {
		if m.Time != nil && m.Time.After(latest) {
			latest = m.Time.Time
		}
	}
	return latest.UTC()
}

func (s *Server) registerProjects() {
	register(s, huma.Operation{
		OperationID: "createProject", Method: http.MethodPost, Path: "/projects",
		Summary: "Create a project", Tags: []string{"Projects"}, DefaultStatus: http.StatusCreated,
		Errors: []int{http.StatusConflict},
	}, auth.ProjectsWrite, s.createProject)

	register(s, huma.Operation{
		OperationID: "listProjects", Method: http.MethodGet, Path: "/projects",
		Summary: "List projects", Tags: []string{"Projects"},
	}, auth.ProjectsRead, s.listProjects)

	register(s, huma.Operation{
		OperationID: "getProject", Method: http.MethodGet, Path: "/projects/{project_id}",
		Summary: "Get a project", Tags: []string{"Projects"}, Errors: []int{http.StatusNotFound},
	}, auth.ProjectsRead, s.getProject)

	register(s, huma.Operation{
		OperationID: "updateProject", Method: http.MethodPatch, Path: "/projects/{project_id}",
		Summary: "Update a project", Tags: []string{"Projects"},
		Description: "The body is a JSON merge patch (RFC 7396) over name, description, settings and status; " +
			"null resets a setting to its default. Other fields are ignored.",
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusUnsupportedMediaType},
	}, auth.ProjectsWrite, s.updateProject)
}

func (s *Server) createProject(ctx context.Context, in *struct {
	Body projectCreate
}) (*projectOutput, error) {
	p, t := who(ctx)
	if p.Restricted() {
		// A key limited to some projects could not see what it created.
		return nil, apierror.New(http.StatusForbidden, apierror.CodeForbidden, "an API key restricted to projects cannot create projects")
	}
	id := ids.New(ids.Project)
	now := s.now().UTC()
	proj := &discov1.Project{
		ObjectMeta: metav1.ObjectMeta{
			Name: ids.ToName(id), Namespace: t.Namespace,
			Labels:      labels(t.ID, discov1.LabelProject, id),
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
	if err := s.opts.Client.Create(ctx, proj); err != nil {
		return nil, writeErrorOf(err, "project", id)
	}
	s.awaitCache(ctx, proj, "")
	return &projectOutput{Location: s.opts.BaseURL + "/projects/" + id, Body: projectOf(proj)}, nil
}

type listProjectsInput struct {
	PageParams
	Sort   string `query:"sort" enum:"created_at,updated_at,name" doc:"Field to sort by; default created_at."`
	Status string `query:"status" enum:"active,archived" doc:"Only projects with this status."`
}

var projectSort = pagination.Spec[*discov1.Project]{
	Name: "projects",
	Fields: map[string]func(*discov1.Project) pagination.Key{
		"created_at": func(p *discov1.Project) pagination.Key { return createdKey(p) },
		"updated_at": func(p *discov1.Project) pagination.Key { return pagination.Time(updatedAt(p)) },
		"name":       func(p *discov1.Project) pagination.Key { return pagination.String(strings.ToLower(p.Spec.DisplayName)) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(p *discov1.Project) string { return p.Name },
}

func (s *Server) listProjects(ctx context.Context, in *listProjectsInput) (*listOutput[Project], error) {
	p, t := who(ctx)
	var list discov1.ProjectList
	if err := s.list(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Tenant: t.ID}); err != nil {
		return nil, internalError(err)
	}
	items := make([]*discov1.Project, 0, len(list.Items))
	for i := range list.Items {
		pr := &list.Items[i]
		st := string(pr.Spec.State)
		if st == "" {
			st = string(discov1.ProjectActive)
		}
		if pr.DeletionTimestamp != nil || !p.AllowsProject(ids.FromName(pr.Name)) || (in.Status != "" && st != in.Status) {
			continue
		}
		items = append(items, pr)
	}
	return paginate(s, items, projectSort, in.PageParams, in.Sort, filterKey("status", in.Status), func(p *discov1.Project) Project { return projectOf(p) })
}

type ProjectPath struct {
	ProjectID string `path:"project_id" maxLength:"64" doc:"Project id (proj_ prefix)."`
}

func (s *Server) getProject(ctx context.Context, in *ProjectPath) (*struct{ Body Project }, error) {
	proj, err := s.project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &struct{ Body Project }{Body: projectOf(proj)}, nil
}

// projectPatch documents the PATCH body; the handler applies the raw body as a merge patch.
type projectPatch struct {
	Name        *string        `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Description *string        `json:"description,omitempty" maxLength:"4000" nullable:"true"`
	Status      *string        `json:"status,omitempty" enum:"active,archived" nullable:"true"`
	Settings    *settingsPatch `json:"settings,omitempty"`
}

type settingsPatch struct {
	DefaultMode *string          `json:"default_mode,omitempty" enum:"symbolic,neural,neuro_symbolic,causal" nullable:"true"`
	Governance  *governancePatch `json:"governance,omitempty"`
}

type governancePatch struct {
	PromotionCeiling        *string  `json:"promotion_ceiling,omitempty" enum:"explore,validate,publish" nullable:"true"`
	RequireNegativeControls *bool    `json:"require_negative_controls,omitempty" nullable:"true"`
	TruthDialThreshold      *float64 `json:"truth_dial_threshold,omitempty" minimum:"0" maximum:"1" nullable:"true"`
}

func (s *Server) updateProject(ctx context.Context, in *struct {
	ProjectPath
	Body    projectPatch
	RawBody []byte
}) (*struct{ Body Project }, error) {
	proj, err := s.project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	var patch map[string]any
	dec := json.NewDecoder(bytes.NewReader(in.RawBody))
	dec.UseNumber()
	if len(bytes.TrimSpace(in.RawBody)) > 0 {
		if err := dec.Decode(&patch); err != nil {
			return nil, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the body must be a JSON object")
		}
	}
	if v, ok := patch["name"]; ok && v == nil {
		return nil, apierror.Invalid("body.name", "cannot be null: a project needs a name")
	}
	// Merge the patch over the wire form of the mutable fields, then map back: null
	// removes a member, which maps to the field's default.
	cur := projectOf(proj)
	doc := map[string]any{}
	raw, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Status      string          `json:"status"`
		Settings    ProjectSettings `json:"settings"`
	}{cur.Name, cur.Description, cur.Status, cur.Settings})
	_ = json.Unmarshal(raw, &doc)
	// Fields the contract does not let PATCH change are ignored, as unknown fields are.
	for k := range patch {
		if k != "name" && k != "description" && k != "status" && k != "settings" {
			delete(patch, k)
		}
	}
	merged := mergePatch(doc, patch)
	raw, _ = json.Marshal(merged)
	var next projectPatch
	if err := json.Unmarshal(raw, &next); err != nil {
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the patch does not fit the project: %v", err)
	}

	before := proj.ResourceVersion
	upd := proj.DeepCopy()
	upd.Spec.DisplayName = ptr.Deref(next.Name, proj.Spec.DisplayName)
	upd.Spec.Description = ptr.Deref(next.Description, "")
	upd.Spec.State = discov1.ProjectState(ptr.Deref(next.Status, string(discov1.ProjectActive)))
	upd.Spec.Settings = discov1.ProjectSettings{}
	if st := next.Settings; st != nil {
		upd.Spec.Settings.DefaultMode = discov1.Mode(ptr.Deref(st.DefaultMode, ""))
		if g := st.Governance; g != nil {
			upd.Spec.Settings.Governance = discov1.GovernanceSettings{
				PromotionCeiling:        discov1.Tier(ptr.Deref(g.PromotionCeiling, "")),
				RequireNegativeControls: g.RequireNegativeControls,
				TruthDialThreshold:      g.TruthDialThreshold,
			}
		}
	}
	if upd.Annotations == nil {
		upd.Annotations = map[string]string{}
	}
	upd.Annotations[annotationUpdatedAt] = s.now().UTC().Format(time.RFC3339Nano)
	// Update carries the resource version we read: a concurrent change makes it fail
	// with a conflict (409) instead of being overwritten.
	if err := s.opts.Client.Update(ctx, upd); err != nil {
		return nil, writeErrorOf(err, "project", in.ProjectID)
	}
	s.awaitCache(ctx, upd, before)
	return &struct{ Body Project }{Body: projectOf(upd)}, nil
}

// mergePatch applies an RFC 7396 JSON merge patch to target.
func mergePatch(target any, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergePatch(tm[k], v)
	}
	return tm
}
