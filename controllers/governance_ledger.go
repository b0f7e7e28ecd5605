package controllers

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/patch"
)

// observeGovernance keeps status.observedGovernance up to date with the spec's governance,
// and ledgers a change a user made through the Kubernetes API (the admission webhook
// stamped it with AnnotationGovernanceChangedBy) as policy_changed, with the before and the
// after (issue 17, item 3). Changes made through REST are ledgered by the facade and carry
// no annotation; the first observation of an object records without an entry. Once the
// status is written, the caller removes the annotation with clearGovernanceAttribution, so
// a crash in between never ledgers a change twice: the observed governance already matches.
func observeGovernance[G any](ctx context.Context, l *ledger.Ledger, obj client.Object, tenantID, projectID, resource string,
	current G, observed **G) error {
	by := obj.GetAnnotations()[discov1.AnnotationGovernanceChangedBy]
	if *observed != nil && !equality.Semantic.DeepEqual(current, **observed) && by != "" && l != nil {
		if _, err := l.Append(ctx, ledger.Entry{
			TenantID: tenantID, ProjectID: projectID, EventType: ledger.PolicyChanged, Actor: "kubernetes:" + by,
			Details: map[string]any{"resource": resource, resource + "_id": publicID(obj),
				"before": **observed, "after": current, "via": "kubernetes"},
		}); err != nil {
			return err
		}
	}
	cur := current
	*observed = &cur
	return nil
}

// clearGovernanceAttribution removes the webhook's attribution once the change it names is
// recorded.
func clearGovernanceAttribution(ctx context.Context, c client.Client, obj client.Object) error {
	if _, ok := obj.GetAnnotations()[discov1.AnnotationGovernanceChangedBy]; !ok {
		return nil
	}
	before := obj.DeepCopyObject().(client.Object)
	annotations := obj.GetAnnotations()
	delete(annotations, discov1.AnnotationGovernanceChangedBy)
	obj.SetAnnotations(annotations)
	return client.IgnoreNotFound(patch.Object(ctx, c, before, obj))
}
