package admission

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// Paths of the project and campaign governance webhooks.
const (
	GovernancePath       = "/validate-discovery-disco-dev-v1alpha1-governance"
	GovernanceMutatePath = "/mutate-discovery-disco-dev-v1alpha1-governance"
)

// +kubebuilder:webhook:path=/mutate-discovery-disco-dev-v1alpha1-governance,mutating=true,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=projects;campaigns,verbs=create;update,versions=v1alpha1,name=mgovernance.discovery.disco.dev,admissionReviewVersions=v1

// GovernanceAttributor stamps a project or campaign whose governance a user changes with
// the user's name (AnnotationGovernanceChangedBy), so the controller ledgers the change as
// policy_changed with that actor. Nobody else sets the annotation: a value a request brings
// that the webhook did not put there is dropped. The facade ledgers its own changes, so its
// requests leave no annotation.
type GovernanceAttributor struct {
	Decoder    admission.Decoder
	Identities Identities
}

func (a *GovernanceAttributor) Handle(_ context.Context, req admission.Request) admission.Response {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	changed, err := governanceChanged(a.Decoder, req)
	if err != nil {
		return undecodable()
	}
	component := a.Identities.isComponent(req.UserInfo)
	if component && !changed {
		return admission.Allowed("") // the controller clearing the attribution it recorded
	}
	want := ""
	switch {
	case changed && !component:
		want = req.UserInfo.Username
	case !changed && req.Operation == admissionv1.Update:
		old := &unstructured.Unstructured{}
		if err := old.UnmarshalJSON(req.OldObject.Raw); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		want = old.GetAnnotations()[discov1.AnnotationGovernanceChangedBy] // not yet ledgered
	}
	annotations := obj.GetAnnotations()
	if annotations[discov1.AnnotationGovernanceChangedBy] == want {
		return admission.Allowed("")
	}
	if want == "" {
		delete(annotations, discov1.AnnotationGovernanceChangedBy)
	} else {
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[discov1.AnnotationGovernanceChangedBy] = want
	}
	obj.SetAnnotations(annotations)
	return patched(req, obj)
}

// +kubebuilder:webhook:path=/validate-discovery-disco-dev-v1alpha1-governance,mutating=false,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=projects;campaigns,verbs=create;update,versions=v1alpha1,name=vgovernance.discovery.disco.dev,admissionReviewVersions=v1

// GovernanceValidator lets a user change a project's or campaign's governance settings
// (promotion ceiling, Truth Dial threshold, negative-controls requirement, auto-promotion)
// only when RBAC grants them update on the virtual subresource projects/governance or
// campaigns/governance, as Kubernetes guards certificate approval with
// certificatesigningrequests/approval. Editing a project is not enough: governance decides
// what claims may be published (issue 17, item 3). The REST facade checks its own
// governance:write scope.
type GovernanceValidator struct {
	Decoder    admission.Decoder
	Client     client.Client
	Identities Identities
}

func (v *GovernanceValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if v.Identities.isComponent(req.UserInfo) || (req.Operation != admissionv1.Create && req.Operation != admissionv1.Update) {
		return admission.Allowed("")
	}
	changed, err := governanceChanged(v.Decoder, req)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if !changed {
		return admission.Allowed("")
	}
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extraOf(req),
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: req.Namespace, Verb: "update", Group: discov1.GroupVersion.Group,
			Resource: req.Resource.Resource, Subresource: "governance", Name: req.Name,
		},
	}}
	if err := v.Client.Create(ctx, sar); err != nil {
		return admission.Errored(http.StatusInternalServerError, fmt.Errorf("check access to %s/governance: %w", req.Resource.Resource, err))
	}
	if !sar.Status.Allowed {
		return deny(fmt.Sprintf("changing governance settings needs update on %s/governance (the disco-promoter or disco-admin role); %s may edit the rest of the %s",
			req.Resource.Resource, req.UserInfo.Username, singular(req.Resource.Resource)))
	}
	return admission.Allowed("")
}

func singular(resource string) string {
	if resource == "projects" {
		return "project"
	}
	return "campaign"
}

// governanceChanged reports whether the request sets governance: any change on update, any
// value on create (a new object's governance is defaulted by the CRD schema when omitted).
func governanceChanged(dec admission.Decoder, req admission.Request) (bool, error) {
	switch req.Resource.Resource {
	case "projects":
		obj, old := &discov1.Project{}, &discov1.Project{}
		if err := dec.DecodeRaw(req.Object, obj); err != nil {
			return false, err
		}
		if req.Operation == admissionv1.Create {
			return !equality.Semantic.DeepEqual(obj.Spec.Settings.Governance, projectGovernanceDefaults()), nil
		}
		if err := dec.DecodeRaw(req.OldObject, old); err != nil {
			return false, err
		}
		return !equality.Semantic.DeepEqual(obj.Spec.Settings.Governance, old.Spec.Settings.Governance), nil
	case "campaigns":
		obj, old := &discov1.Campaign{}, &discov1.Campaign{}
		if err := dec.DecodeRaw(req.Object, obj); err != nil {
			return false, err
		}
		if req.Operation == admissionv1.Create {
			return !equality.Semantic.DeepEqual(obj.Spec.Governance, discov1.CampaignGovernance{}), nil
		}
		if err := dec.DecodeRaw(req.OldObject, old); err != nil {
			return false, err
		}
		return !equality.Semantic.DeepEqual(obj.Spec.Governance, old.Spec.Governance), nil
	}
	return false, nil
}

// projectGovernanceDefaults is what the CRD schema defaults a new project's governance to;
// admission sees the object after defaulting.
func projectGovernanceDefaults() discov1.GovernanceSettings {
	yes, threshold := true, 0.7
	return discov1.GovernanceSettings{PromotionCeiling: discov1.TierValidate, RequireNegativeControls: &yes, TruthDialThreshold: &threshold}
}

func extraOf(req admission.Request) map[string]authorizationv1.ExtraValue {
	if len(req.UserInfo.Extra) == 0 {
		return nil
	}
	out := make(map[string]authorizationv1.ExtraValue, len(req.UserInfo.Extra))
	for k, v := range req.UserInfo.Extra {
		out[k] = authorizationv1.ExtraValue(v)
	}
	return out
}
