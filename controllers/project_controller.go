package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/tenancy"
)

// ProjectReconciler keeps a project's status and, on deletion, removes what lives under it.
// Settings defaults come from the CRD schema; the reconciler reports Ready once the tenant
// exists and the project sits in the tenant's namespace.
type ProjectReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// Ledger records governance changes made through the Kubernetes API; nil records none.
	Ledger *ledger.Ledger
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=projects,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=projects/status;projects/finalizers,verbs=get;update;patch

func (r *ProjectReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	project := &discov1.Project{}
	if err := r.Get(ctx, req.NamespacedName, project); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !project.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, project)
	}
	if added, err := addFinalizer(ctx, r.Client, project); added || err != nil {
		return ctrl.Result{}, err
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, project)
	previous := project.Status.Phase
	defer func() {
		if err == nil { // observedGeneration moves only when the reconcile succeeded
			project.Status.ObservedGeneration = project.Generation
		}
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil {
			joinPatchErr(&err, clearGovernanceAttribution(ctx, r.Client, project))
		}
		if err == nil && previous != "" && previous != project.Status.Phase {
			r.Recorder.Eventf(project, nil, corev1.EventTypeNormal, discov1.EventReasonStateChanged, "Reconcile", "project is now %s", project.Status.Phase)
		}
	}()

	// A project applied with kubectl names no tenant: it is its namespace's (issue 14, item 6).
	if project.Spec.TenantID == "" {
		project.Status.TenantID, _ = tenancy.OfNamespace(ctx, r.Client, project.Namespace) // "": no tenant yet
	} else {
		project.Status.TenantID = project.Spec.TenantID
	}
	project.Status.ID = project.ID()
	if labelled, err := setLabels(ctx, r.Client, project, map[string]string{discov1.LabelID: project.ID(),
		discov1.LabelProject: project.ID(), discov1.LabelTenant: project.TenantID()}); labelled || err != nil {
		return ctrl.Result{}, err
	}
	if project.Spec.DisplayName == "" {
		return ctrl.Result{}, defaultDisplayName(ctx, r.Client, project, &project.Spec.DisplayName)
	}
	if project.TenantID() == "" {
		msg := "namespace " + project.Namespace + " belongs to no tenant; the project waits for its Tenant"
		waitFor(r.Recorder, project, &project.Status.Conditions, discov1.ConditionReady, discov1.ReasonTenantNotFound, msg)
		return ctrl.Result{}, nil
	}
	if err := observeGovernance(ctx, r.Ledger, project, project.TenantID(), project.ID(), "project",
		project.Spec.Settings.Governance, &project.Status.ObservedGovernance); err != nil {
		return ctrl.Result{}, err
	}
	project.Status.Phase = project.Spec.State
	if project.Status.Phase == "" {
		project.Status.Phase = discov1.ProjectActive
	}
	ready, reason, message := r.tenantReady(ctx, project)
	status := metav1.ConditionFalse
	if ready {
		status = metav1.ConditionTrue
	}
	setCondition(&project.Status.Conditions, project, discov1.ConditionReady, status, reason, message)
	return ctrl.Result{}, nil
}

func (r *ProjectReconciler) tenantReady(ctx context.Context, project *discov1.Project) (bool, string, string) {
	tenant := &discov1.Tenant{}
	if err := tenancy.Get(ctx, r.Client, project.TenantID(), tenant); err != nil {
		return false, discov1.ReasonTenantNotFound, "tenant " + project.TenantID() + " does not exist"
	}
	if ns := TenantNamespace(tenant); ns != project.Namespace {
		return false, discov1.ReasonWrongNamespace, "projects of tenant " + project.TenantID() + " belong in namespace " + ns
	}
	return true, discov1.ReasonReady, "project is " + string(project.Status.Phase)
}

// The project's finalizer deletes its claims, runs, campaigns and datasets by label, one
// collection each (DeleteAllOf).
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=claims;runs;campaigns;datasets,verbs=deletecollection

// finalize deletes the project's campaigns, datasets, runs and claims. Owner references
// would do this through the garbage collector, but the embedded control plane of `disco dev`
// has no garbage collector, so the project cleans up explicitly.
func (r *ProjectReconciler) finalize(ctx context.Context, project *discov1.Project) error {
	if !controllerutil.ContainsFinalizer(project, discov1.Finalizer) {
		return nil
	}
	sel := client.MatchingLabels{discov1.LabelProject: project.ID()}
	in := client.InNamespace(project.Namespace)
	for _, obj := range []client.Object{&discov1.Claim{}, &discov1.Run{}, &discov1.Campaign{}, &discov1.Dataset{}} {
		if err := r.DeleteAllOf(ctx, obj, in, sel); err != nil {
			return err
		}
	}
	return removeFinalizer(ctx, r.Client, project)
}

func (r *ProjectReconciler) SetupWithManager(mgr ctrl.Manager) error {
	// A tenant that becomes ready labels its namespace: the projects there that wait for
	// their tenant go on.
	return ctrl.NewControllerManagedBy(mgr).For(&discov1.Project{}).
		Watches(&discov1.Tenant{}, handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
			projects := &discov1.ProjectList{}
			if err := r.List(ctx, projects, client.InNamespace(TenantNamespace(o.(*discov1.Tenant)))); err != nil {
				return nil
			}
			out := make([]reconcile.Request, 0, len(projects.Items))
			for i := range projects.Items {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&projects.Items[i])})
			}
			return out
		})).
		Named("project").Complete(r)
}
