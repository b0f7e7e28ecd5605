package admission

import (
	"context"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/datasetunits"
)

// DatasetPath is the path of the Dataset source webhook.
const DatasetPath = "/validate-discovery-disco-dev-v1alpha1-dataset"

// +kubebuilder:webhook:path=/validate-discovery-disco-dev-v1alpha1-dataset,mutating=false,failurePolicy=fail,sideEffects=None,groups=discovery.disco.dev,resources=datasets,verbs=create,versions=v1alpha1,name=vdataset.discovery.disco.dev,admissionReviewVersions=v1

// DatasetSourceValidator lets a user create a Dataset whose spec.source names a ConfigMap,
// a Secret or a PersistentVolumeClaim only when RBAC lets that user get it. The manager reads the source with its
// own rights, so without this check a user who may create Datasets could have it read, and
// profile into the dataset's columns, a ConfigMap they may not read, or use credentials they
// may not see (the confused deputy; cert-manager checks a CertificateRequest's issuer
// reference the same way). A dataset's spec is immutable, so creation is the only check.
type DatasetSourceValidator struct {
	Decoder    admission.Decoder
	Client     client.Client
	Identities Identities
}

func (v *DatasetSourceValidator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if v.Identities.isComponent(req.UserInfo) || req.Operation != admissionv1.Create {
		return admission.Allowed("")
	}
	ds := &discov1.Dataset{}
	if err := v.Decoder.DecodeRaw(req.Object, ds); err != nil {
		return undecodable()
	}
	// spec.units are parsed with engine/units' grammar, as the REST facade parses them;
	// the CRD bounds their sizes (issue 18 item 2).
	if msg := datasetunits.Message(datasetunits.Check(ds.Spec.Units)); msg != "" {
		r := admission.Denied("spec.units: " + msg)
		r.Result.Code, r.Result.Reason = http.StatusUnprocessableEntity, metav1.StatusReasonInvalid
		return r
	}
	src := ds.Spec.Source
	if src == nil {
		return admission.Allowed("")
	}
	var refs []struct{ resource, name string }
	if src.ConfigMapRef != nil {
		refs = append(refs, struct{ resource, name string }{"configmaps", src.ConfigMapRef.Name})
	}
	if src.SecretRef != nil {
		refs = append(refs, struct{ resource, name string }{"secrets", src.SecretRef.Name})
	}
	if src.PersistentVolumeClaim != nil {
		refs = append(refs, struct{ resource, name string }{"persistentvolumeclaims", src.PersistentVolumeClaim.ClaimName})
	}
	for _, ref := range refs {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: extraOf(req),
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: req.Namespace, Verb: "get", Resource: ref.resource, Name: ref.name,
			},
		}}
		if err := v.Client.Create(ctx, sar); err != nil {
			return admission.Errored(http.StatusInternalServerError, fmt.Errorf("check access to %s %s: %w", ref.resource, ref.name, err))
		}
		if !sar.Status.Allowed {
			return deny(fmt.Sprintf("spec.source names %s %s, which %s may not get in namespace %s; "+
				"a dataset may only be made from what its author may read", ref.resource, ref.name, req.UserInfo.Username, req.Namespace))
		}
	}
	return admission.Allowed("")
}
