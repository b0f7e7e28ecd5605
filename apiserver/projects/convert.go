package projects

import (
	"cmp"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/governance"
)

// annotationUpdatedAt records the last change made through the facade (Kubernetes keeps
// no such time for the whole object).
const annotationUpdatedAt = "api.disco.dev/updated-at"

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
func GovernanceOf(g discov1.GovernanceSettings) Governance {
	pol := governance.PolicyFor(&discov1.Project{Spec: discov1.ProjectSpec{Settings: discov1.ProjectSettings{Governance: g}}}, nil)
	return Governance{
		PromotionCeiling:        string(pol.ProjectCeiling),
		RequireNegativeControls: pol.RequireControls,
		TruthDialThreshold:      pol.Threshold,
	}
}

// Status is the project's status, active unless it says otherwise.
func Status(p *discov1.Project) string {
	return string(cmp.Or(p.Spec.State, discov1.ProjectActive))
}

func Of(p *discov1.Project) Project {
	return Project{
		ID:          p.ID(),
		Name:        p.Spec.DisplayName,
		Description: p.Spec.Description,
		Status:      Status(p),
		Settings: ProjectSettings{
			DefaultMode: string(cmp.Or(p.Spec.Settings.DefaultMode, discov1.ModeSymbolic)),
			Governance:  GovernanceOf(p.Spec.Settings.Governance),
		},
		CreatedAt: resource.UTC(p.CreationTimestamp),
		UpdatedAt: updatedAt(p),
		CreatedBy: p.Spec.CreatedBy,
		TenantID:  p.TenantID(),
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

// archivedProject refuses to add work to an archived project, as an archived campaign
// refuses runs: 409 conflict with details.status archived (issue 17). what names what the
// project accepts no more of, e.g. "runs".
func Archived(proj *discov1.Project, what string) error {
	if proj.Spec.State != discov1.ProjectArchived {
		return nil
	}
	id := proj.ID()
	return apierror.Conflict("project %s is archived and accepts no %s; set its status to active first", id, what).
		With("project_id", id).With("status", string(discov1.ProjectArchived))
}
