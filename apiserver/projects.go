package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
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
	ETag     string `header:"ETag" doc:"Entity tag of this version of the project; send it in If-Match to update only this version."`
	Body     Project
}

// projectBody is a project with its entity tag.
type projectBody struct {
	ETag string `header:"ETag" doc:"Entity tag of this version of the project; send it in If-Match to update only this version."`
	Body Project
}

// governanceOf is a project's governance as in force: the policy internal/governance
// applies to promotions in a project with these settings, unset rules taking their
// defaults.
func governanceOf(g discov1.GovernanceSettings) Governance {
	pol := governance.PolicyFor(&discov1.Project{Spec: discov1.ProjectSpec{Settings: discov1.ProjectSettings{Governance: g}}}, nil)
	return Governance{
		PromotionCeiling:        string(pol.ProjectCeiling),
		RequireNegativeControls: pol.RequireControls,
		TruthDialThreshold:      pol.Threshold,
	}
}

func projectOf(p *discov1.Project) Project {
	status := string(p.Spec.State)
	if status == "" {
		status = string(discov1.ProjectActive)
	}
	mode := string(p.Spec.Settings.DefaultMode)
	if mode == "" {
		mode = string(discov1.ModeSymbolic)
	}
	return Project{
		ID:          ids.FromName(p.Name),
		Name:        p.Spec.DisplayName,
		Description: p.Spec.Description,
		Status:      status,
		Settings: ProjectSettings{
			DefaultMode: mode,
			Governance:  governanceOf(p.Spec.Settings.Governance),
		},
		CreatedAt: resource.UTC(p.CreationTimestamp),
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
	transport.Register(s.api, huma.Operation{
		OperationID: "createProject", Method: http.MethodPost, Path: "/projects",
		Summary: "Create a project", Tags: []string{"Projects"}, DefaultStatus: http.StatusCreated,
		Description: "Governance settings other than the defaults (promotion_ceiling validate, truth_dial_threshold 0.7, " +
			"require_negative_controls true) also need the scope `" + auth.GovernanceWrite + "`, and are recorded in the " +
			"project's ledger as a policy_changed entry.",
		Errors: []int{http.StatusConflict},
	}, auth.ProjectsWrite, s.createProject)

	transport.Register(s.api, huma.Operation{
		OperationID: "listProjects", Method: http.MethodGet, Path: "/projects",
		Summary: "List projects", Tags: []string{"Projects"},
	}, auth.ProjectsRead, s.listProjects)

	transport.Register(s.api, huma.Operation{
		OperationID: "getProject", Method: http.MethodGet, Path: "/projects/{project_id}",
		Summary: "Get a project", Tags: []string{"Projects"}, Errors: []int{http.StatusNotFound},
	}, auth.ProjectsRead, s.getProject)

	transport.Register(s.api, huma.Operation{
		OperationID: "updateProject", Method: http.MethodPatch, Path: "/projects/{project_id}",
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

func (s *Server) createProject(ctx context.Context, in *struct {
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
	now := s.now().UTC()
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
	if err := s.createGoverned(ctx, proj, policyChange{
		projectID: id, resource: "project", id: id, field: "body.settings.governance",
		before: governanceOf(discov1.GovernanceSettings{}), after: governanceOf(proj.Spec.Settings.Governance),
	}); err != nil {
		return nil, err
	}
	return &projectOutput{Location: s.opts.BaseURL + "/projects/" + id, ETag: etagOf(proj), Body: projectOf(proj)}, nil
}

// governanceScopeError refuses a change of governance settings to a caller without
// governance:write. projects:write covers a project's name, description and status; the
// rules that decide which claims may be promoted are a separate grant (issue 17).
func governanceScopeError(field string) error {
	return apierror.InsufficientScope(auth.GovernanceWrite).With("field", field)
}

// policyChange is a change of the governance settings of a project or a campaign, in
// their wire form before and after.
type policyChange struct {
	projectID    string // whose ledger records the change
	resource, id string // "project" or "campaign", and its id
	field        string // the request field that carries the settings
	before       any
	after        any
}

// recordPolicyChange ledgers a change of governance settings as policy_changed, with the
// settings before and after and the names of the rules that changed, in the ledger of
// the project they belong to (DESIGN.md: every governance event is ledgered). Nothing is
// recorded when nothing changed.
func (s *Server) recordPolicyChange(ctx context.Context, ch policyChange) error {
	changed := changedFields(ch.before, ch.after)
	if len(changed) == 0 {
		return nil
	}
	p, t := auth.Who(ctx)
	_, err := s.ledgerAppend(ctx, t.ID, ch.projectID, ledger.PolicyChanged, "", "", p.Actor, map[string]any{
		"resource": ch.resource, ch.resource + "_id": ch.id, "before": ch.before, "after": ch.after, "changed": changed,
	})
	return err
}

// createGoverned creates obj, a project or campaign whose governance settings are
// ch.after where it would otherwise follow ch.before. Settings that differ need
// governance:write and are ledgered; an object whose settings could not be ledgered is
// deleted again, since an unrecorded governance setting must not stand.
func (s *Server) createGoverned(ctx context.Context, obj client.Object, ch policyChange) error {
	if p, _ := auth.Who(ctx); !p.Has(auth.GovernanceWrite) && len(changedFields(ch.before, ch.after)) > 0 {
		return governanceScopeError(ch.field)
	}
	if err := s.opts.Client.Create(ctx, obj); err != nil {
		return resource.WriteErrorOf(err, ch.resource, ch.id)
	}
	if err := s.recordPolicyChange(ctx, ch); err != nil {
		uid := obj.GetUID()
		derr := s.opts.Client.Delete(context.WithoutCancel(ctx), obj, client.Preconditions{UID: &uid})
		if derr != nil && !apierrors.IsNotFound(derr) {
			s.log.Error(derr, "could not delete an object whose governance was not ledgered", "name", obj.GetName(), "request_id", transport.RequestID(ctx))
		}
		return err
	}
	s.kit.AwaitCache(ctx, obj)
	return nil
}

// changedFields lists, sorted, the JSON members whose values differ between two objects.
func changedFields(before, after any) []string {
	var b, a map[string]any
	rb, _ := json.Marshal(before)
	ra, _ := json.Marshal(after)
	_ = json.Unmarshal(rb, &b)
	_ = json.Unmarshal(ra, &a)
	var out []string
	for k := range a {
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// etagOf is the strong entity tag (RFC 9110, section 8.8.3) of an object's current
// version: its resourceVersion, which the API server changes on every write.
func etagOf(obj client.Object) string { return `"` + obj.GetResourceVersion() + `"` }

// ifMatch is a parsed If-Match header (RFC 9110, section 13.1.1).
type ifMatch struct {
	any  bool     // "*": any current version
	tags []string // opaque tags of strong entity tags; weak ones never match
}

// parseIfMatch reads If-Match: "*" or a comma-separated list of entity tags. It returns
// nil for an absent header.
func parseIfMatch(h string) (*ifMatch, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return nil, nil
	}
	if h == "*" {
		return &ifMatch{any: true}, nil
	}
	bad := apierror.Invalid("header.If-Match", `must be "*" or a list of entity tags such as "123", as sent in ETag`)
	m := &ifMatch{}
	for rest := h; ; {
		rest = strings.TrimLeft(rest, " \t")
		weak := strings.HasPrefix(rest, "W/")
		rest = strings.TrimPrefix(rest, "W/")
		if !strings.HasPrefix(rest, `"`) {
			return nil, bad
		}
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return nil, bad
		}
		tag := rest[1 : 1+end]
		if strings.ContainsFunc(tag, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
			return nil, bad
		}
		if !weak {
			m.tags = append(m.tags, tag)
		}
		rest = strings.TrimLeft(rest[2+end:], " \t")
		if rest == "" {
			return m, nil
		}
		if !strings.HasPrefix(rest, ",") {
			return nil, bad
		}
		rest = rest[1:]
	}
}

// matches applies the strong comparison of RFC 9110, section 8.8.3.2.
func (m *ifMatch) matches(obj client.Object) bool {
	return m == nil || m.any || slices.Contains(m.tags, obj.GetResourceVersion())
}

func preconditionFailed(kind, id string, current client.Object) error {
	e := apierror.New(http.StatusPreconditionFailed, apierror.CodePreconditionFailed,
		"the %s has changed since the version named in If-Match; read it again and reapply your change", kind).
		With("resource", kind).With("id", id)
	if current != nil {
		e = e.With("etag", etagOf(current))
	}
	return e
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

func (s *Server) listProjects(ctx context.Context, in *listProjectsInput) (*resource.ListOutput[Project], error) {
	p, t := auth.Who(ctx)
	var list discov1.ProjectList
	if err := s.kit.List(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Tenant: t.ID}); err != nil {
		return nil, apierror.Internal(err)
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
	return resource.Paginate(s.kit, items, projectSort, in.PageParams, in.Sort, resource.FilterKey("status", in.Status), func(p *discov1.Project) Project { return projectOf(p) })
}

type ProjectPath struct {
	ProjectID string `path:"project_id" maxLength:"64" doc:"Project id (proj_ prefix)."`
}

func (s *Server) getProject(ctx context.Context, in *ProjectPath) (*projectBody, error) {
	proj, err := s.kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &projectBody{ETag: etagOf(proj), Body: projectOf(proj)}, nil
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
	IfMatch string `header:"If-Match" maxLength:"1024" doc:"Update only if the project still has one of these entity tags (its ETag); otherwise 412."`
	Body    projectPatch
	RawBody []byte
}) (*projectBody, error) {
	p, t := auth.Who(ctx)
	cached, err := s.kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	cond, err := parseIfMatch(in.IfMatch)
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
	// Fields the contract does not let PATCH change are ignored, as unknown fields are.
	for k := range patch {
		if k != "name" && k != "description" && k != "status" && k != "settings" {
			delete(patch, k)
		}
	}

	// The patch applies to the project as the API server has it now, not to the cached
	// copy: a controller writing the project between our read and our update (status,
	// defaults) is no reason to refuse a merge patch, so a conflict is retried against a
	// fresh read (issue 17). With If-Match the client asked for exactly the version it
	// named, so there a conflict is its answer: 412.
	var (
		upd            *discov1.Project
		before, after  Governance
		prevGovernance discov1.GovernanceSettings
	)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Project
		if err := s.opts.APIReader.Get(ctx, client.ObjectKeyFromObject(cached), &cur); err != nil {
			return err
		}
		if cur.Spec.TenantID != t.ID || cur.DeletionTimestamp != nil {
			return apierror.NotFound("project", in.ProjectID)
		}
		if !cond.matches(&cur) {
			return preconditionFailed("project", in.ProjectID, &cur)
		}
		next, err := s.patchedProject(&cur, patch)
		if err != nil {
			return err
		}
		before, after = governanceOf(cur.Spec.Settings.Governance), governanceOf(next.Spec.Settings.Governance)
		if before != after && !p.Has(auth.GovernanceWrite) {
			return governanceScopeError("body.settings.governance")
		}
		prevGovernance = cur.Spec.Settings.Governance
		if err := s.opts.Client.Update(ctx, next); err != nil {
			if apierrors.IsConflict(err) && cond != nil && !cond.any {
				return preconditionFailed("project", in.ProjectID, nil)
			}
			return err
		}
		upd = next
		return nil
	})
	if err != nil {
		if _, ok := err.(*apierror.Error); ok {
			return nil, err
		}
		return nil, resource.WriteErrorOf(err, "project", in.ProjectID)
	}
	if err := s.recordPolicyChange(ctx, policyChange{projectID: in.ProjectID, resource: "project", id: in.ProjectID,
		before: before, after: after}); err != nil {
		s.undoGovernance(ctx, upd, prevGovernance)
		return nil, err
	}
	s.kit.AwaitCache(ctx, upd)
	return &projectBody{ETag: etagOf(upd), Body: projectOf(upd)}, nil
}

// patchedProject returns cur with the merge patch applied over the wire form of its
// mutable fields: null removes a member, which maps to the field's default.
func (s *Server) patchedProject(cur *discov1.Project, patch map[string]any) (*discov1.Project, error) {
	wire := projectOf(cur)
	doc := map[string]any{}
	raw, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Status      string          `json:"status"`
		Settings    ProjectSettings `json:"settings"`
	}{wire.Name, wire.Description, wire.Status, wire.Settings})
	_ = json.Unmarshal(raw, &doc)
	merged := mergePatch(doc, patch)
	raw, _ = json.Marshal(merged)
	var next projectPatch
	if err := json.Unmarshal(raw, &next); err != nil {
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the patch does not fit the project: %v", err)
	}
	upd := cur.DeepCopy()
	upd.Spec.DisplayName = ptr.Deref(next.Name, cur.Spec.DisplayName)
	upd.Spec.Description = ptr.Deref(next.Description, "")
	if err := transport.CheckText(transport.NameText("body.name", upd.Spec.DisplayName), transport.ProseText("body.description", upd.Spec.Description)); err != nil {
		return nil, err
	}
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
	return upd, nil
}

// undoGovernance puts a project's governance back when its change could not be
// ledgered: an unrecorded governance change must not stand.
func (s *Server) undoGovernance(ctx context.Context, proj *discov1.Project, g discov1.GovernanceSettings) {
	ctx = context.WithoutCancel(ctx)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Project
		if err := s.opts.APIReader.Get(ctx, client.ObjectKeyFromObject(proj), &cur); err != nil {
			return err
		}
		cur.Spec.Settings.Governance = g
		return s.opts.Client.Update(ctx, &cur)
	})
	if err != nil {
		s.log.Error(err, "could not undo an unledgered governance change", "project", proj.Name, "request_id", transport.RequestID(ctx))
	}
}

// archivedProject refuses to add work to an archived project, as an archived campaign
// refuses runs: 409 conflict with details.status archived (issue 17). what names what the
// project accepts no more of, e.g. "runs".
func archivedProject(proj *discov1.Project, what string) error {
	if proj.Spec.State != discov1.ProjectArchived {
		return nil
	}
	id := ids.FromName(proj.Name)
	return apierror.Conflict("project %s is archived and accepts no %s; set its status to active first", id, what).
		With("project_id", id).With("status", string(discov1.ProjectArchived))
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
