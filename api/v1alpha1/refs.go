package v1alpha1

import (
	"github.com/discolab/disco/internal/ids"
)

// LabelID carries an object's public id (status.id), so that a label selector finds an
// object whose name is not its id: a human-named object applied with kubectl (issue 14,
// item 6). The controller sets it; a user never needs to.
const LabelID = "discovery.disco.dev/id"

// ObjectRef names an object of the same kind's parent in the same namespace, the shape of
// Kubernetes' LocalObjectReference: `{name: signalling}`.
type ObjectRef struct {
	// Name is the referent's metadata.name, in this object's namespace. An object created
	// through the REST API is named by its id with the first "_" replaced by "-"
	// (proj-<26 characters>); one applied with kubectl has the name its author gave it.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// PublicIDFor is the public id of the object of the given kind prefix named name in
// namespace. An object created through the REST API is named by its id (ids.ToName), so
// its id is read back from the name. A human-named object's id is derived from its
// namespace and name: the same object always has the same id, so references by name and by
// id agree without a lookup, and a GitOps re-create keeps it (issue 14, item 6).
func PublicIDFor(prefix, namespace, name string) string {
	if id := ids.FromName(name); ids.Valid(prefix, id) {
		return id
	}
	return ids.Derive(prefix, "name", namespace, name)
}

// ID is the tenant's public id (ten_...). A Tenant applied with kubectl may have a human
// name (physics-lab); its id is derived from the name, as for the namespaced kinds, and the
// tenant controller labels it with LabelID so the facade finds it by id.
func (t *Tenant) ID() string { return PublicIDFor(ids.Tenant, "", t.Name) }

// ID is the project's public id (proj_...).
func (p *Project) ID() string { return PublicIDFor(ids.Project, p.Namespace, p.Name) }

// TenantID is the project's tenant: spec.tenantID when its writer gave it (the REST form),
// else the tenant of its namespace the controller recorded in status.
func (p *Project) TenantID() string {
	if p.Spec.TenantID != "" {
		return p.Spec.TenantID
	}
	return p.Status.TenantID
}

// ID is the campaign's public id (camp_...).
func (c *Campaign) ID() string { return PublicIDFor(ids.Campaign, c.Namespace, c.Name) }

// ProjectName is the name of the campaign's Project: spec.projectRef, else the name the
// controller found for spec.projectID (status.projectRef), else the object named by it.
func (c *Campaign) ProjectName() string {
	return refName(c.Spec.ProjectRef, c.Status.ProjectRef, c.Spec.ProjectID)
}

// ProjectID is the public id of the campaign's project.
func (c *Campaign) ProjectID() string {
	return refID(ids.Project, c.Namespace, c.Spec.ProjectRef, c.Spec.ProjectID)
}

// ID is the dataset's public id (ds_...).
func (d *Dataset) ID() string { return PublicIDFor(ids.Dataset, d.Namespace, d.Name) }

// ProjectName is the name of the dataset's Project: spec.projectRef, else the name the
// controller found for spec.projectID (status.projectRef), else the object named by it.
func (d *Dataset) ProjectName() string {
	return refName(d.Spec.ProjectRef, d.Status.ProjectRef, d.Spec.ProjectID)
}

// ProjectID is the public id of the dataset's project.
func (d *Dataset) ProjectID() string {
	return refID(ids.Project, d.Namespace, d.Spec.ProjectRef, d.Spec.ProjectID)
}

// ID is the run's public id (run_...).
func (r *Run) ID() string { return PublicIDFor(ids.Run, r.Namespace, r.Name) }

// CampaignName is the name of the run's Campaign: spec.campaignRef, else the name the
// controller found for spec.campaignID (status.campaignRef), else the object named by it.
func (r *Run) CampaignName() string {
	return refName(r.Spec.CampaignRef, r.Status.CampaignRef, r.Spec.CampaignID)
}

// CampaignID is the public id of the run's campaign.
func (r *Run) CampaignID() string {
	return refID(ids.Campaign, r.Namespace, r.Spec.CampaignRef, r.Spec.CampaignID)
}

// DatasetName is the name of the run's Dataset: spec.datasetRef, else the name the
// controller found for spec.datasetID (status.datasetRef), else the object named by it.
func (r *Run) DatasetName() string {
	return refName(r.Spec.DatasetRef, r.Status.DatasetRef, r.Spec.DatasetID)
}

// DatasetID is the public id of the run's dataset.
func (r *Run) DatasetID() string {
	return refID(ids.Dataset, r.Namespace, r.Spec.DatasetRef, r.Spec.DatasetID)
}

// ProjectID is the public id of the run's project, which is its campaign's: spec.projectID
// when its writer gave it (the REST form), else what the controller (or admission) read
// from the campaign into status.projectID; "" until then.
func (r *Run) ProjectID() string {
	if r.Spec.ProjectID != "" {
		return r.Spec.ProjectID
	}
	return r.Status.ProjectID
}

// refName is the object name a reference resolves to; the ref wins over the id (a CEL rule
// requires exactly one of them).
func refName(ref, resolved *ObjectRef, id string) string {
	if ref != nil && ref.Name != "" {
		return ref.Name
	}
	if resolved != nil && resolved.Name != "" {
		return resolved.Name
	}
	if id == "" {
		return ""
	}
	return ids.ToName(id)
}

func refID(prefix, namespace string, ref *ObjectRef, id string) string {
	if ref != nil && ref.Name != "" {
		return PublicIDFor(prefix, namespace, ref.Name)
	}
	return id
}
