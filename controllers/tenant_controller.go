package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/tenancy"
)

// LabelManagedBy marks namespaces disco created, so deletion only removes its own.
const LabelManagedBy = discov1.LabelManagedBy

// TenantNamespace is the namespace a tenant's objects live in.
func TenantNamespace(t *discov1.Tenant) string {
	if t.Spec.Namespace != "" {
		return t.Spec.Namespace
	}
	return "disco-" + t.Name
}

// TenantReconciler ensures each tenant has its namespace, labelled with the tenant id,
// reports its runs against its concurrency limit, and checks the Kueue LocalQueue it names.
type TenantReconciler struct {
	client.Client
	// Reader reads uncached: the LocalQueue kind may not exist in the cluster at all.
	Reader   client.Reader
	Recorder events.EventRecorder
}

// localQueueGVK is Kueue's LocalQueue (kueue.x-k8s.io/v1beta1).
var localQueueGVK = schema.GroupVersionKind{Group: "kueue.x-k8s.io", Version: "v1beta1", Kind: "LocalQueue"}

// +kubebuilder:rbac:groups=kueue.x-k8s.io,resources=localqueues,verbs=get

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=tenants,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=tenants/status;tenants/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

func (r *TenantReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	tenant := &discov1.Tenant{}
	if err := r.Get(ctx, req.NamespacedName, tenant); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !tenant.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, tenant)
	}
	if added, err := addFinalizer(ctx, r.Client, tenant); added || err != nil {
		return ctrl.Result{}, err
	}
	// A human-named tenant is found by its id through this label (internal/tenancy.Get).
	if labelled, err := setLabels(ctx, r.Client, tenant, map[string]string{discov1.LabelID: tenant.ID()}); labelled || err != nil {
		return ctrl.Result{}, err
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, tenant)
	created := false
	defer func() {
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil && created {
			r.Recorder.Eventf(tenant, nil, corev1.EventTypeNormal, discov1.EventReasonNamespaceCreated, "EnsureNamespace", "created namespace %s", tenant.Status.Namespace)
		}
	}()

	tenant.Status.ID = tenant.ID()
	name := TenantNamespace(tenant)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	op, err := controllerutil.CreateOrPatch(ctx, r.Client, ns, func() error {
		if owner := ns.Labels[discov1.LabelTenant]; owner != "" && owner != tenant.ID() {
			return fmt.Errorf("namespace %s belongs to tenant %s", name, owner)
		}
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[discov1.LabelTenant] = tenant.ID()
		if ns.CreationTimestamp.IsZero() {
			// Only a namespace disco creates is disco's to delete with the tenant; an
			// existing namespace named in spec.namespace is labelled but never owned.
			ns.Labels[LabelManagedBy] = "disco"
			return controllerutil.SetControllerReference(tenant, ns, r.Scheme())
		}
		return nil
	})
	if err != nil {
		setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonNamespaceFailed, err.Error())
		return ctrl.Result{}, err
	}
	created = op == controllerutil.OperationResultCreated
	if err := removeLegacyEngineRBAC(ctx, r.Client, name); err != nil {
		setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonEngineRBACFailed, err.Error())
		return ctrl.Result{}, err
	}
	tenant.Status.Namespace = name
	if err := r.ensureQuota(ctx, tenant, name); err != nil {
		setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonQuotaFailed, err.Error())
		return ctrl.Result{}, err
	}
	if err := r.countRuns(ctx, tenant, name); err != nil {
		return ctrl.Result{}, err
	}
	if ok, reason, message := r.localQueueReady(ctx, tenant, name); !ok {
		setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionFalse, reason, message)
		return ctrl.Result{RequeueAfter: time.Minute}, nil // a LocalQueue created later makes it Ready
	}
	setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionTrue, discov1.ReasonNamespaceReady, "namespace "+name+" is ready")
	log.FromContext(ctx).V(1).Info("tenant reconciled", "namespace", name, "op", op)
	return ctrl.Result{}, nil
}

// countRuns reports the tenant's runs against its concurrency limit (issue 14, item 8).
func (r *TenantReconciler) countRuns(ctx context.Context, tenant *discov1.Tenant, ns string) error {
	runs := &discov1.RunList{}
	if err := r.List(ctx, runs, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil { // only read
		return err
	}
	tenant.Status.ConcurrentRunLimit = int32(TenantRunLimit(tenant))
	tenant.Status.RunsRunning, tenant.Status.RunsQueued = 0, 0
	for i := range runs.Items {
		switch runs.Items[i].Status.Phase {
		case discov1.RunRunning:
			tenant.Status.RunsRunning++
		case discov1.RunQueued, "":
			tenant.Status.RunsQueued++
		}
	}
	return nil
}

// localQueueReady checks the Kueue LocalQueue a tenant names: its runs' Jobs would wait for
// a queue that does not exist, so the tenant is not Ready until it does.
func (r *TenantReconciler) localQueueReady(ctx context.Context, tenant *discov1.Tenant, ns string) (bool, string, string) {
	if tenant.Spec.LocalQueue == "" || r.Reader == nil {
		return true, "", ""
	}
	lq := &unstructured.Unstructured{}
	lq.SetGroupVersionKind(localQueueGVK)
	err := r.Reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: tenant.Spec.LocalQueue}, lq)
	switch {
	case err == nil:
		return true, "", ""
	case meta.IsNoMatchError(err):
		return false, discov1.ReasonKueueNotInstalled, "spec.localQueue names " + tenant.Spec.LocalQueue + ", but Kueue's LocalQueue kind is not installed in this cluster"
	case apierrors.IsNotFound(err):
		return false, discov1.ReasonLocalQueueNotFound, "the LocalQueue " + tenant.Spec.LocalQueue + " does not exist in namespace " + ns + "; runs would wait for it"
	}
	return false, discov1.ReasonLocalQueueUnknown, "cannot read the LocalQueue " + tenant.Spec.LocalQueue + ": " + err.Error()
}

// finalize deletes the namespace the tenant owns (and with it every object of the tenant).
func (r *TenantReconciler) finalize(ctx context.Context, tenant *discov1.Tenant) error {
	if !controllerutil.ContainsFinalizer(tenant, discov1.Finalizer) {
		return nil
	}
	ns := &corev1.Namespace{}
	err := r.Get(ctx, client.ObjectKey{Name: TenantNamespace(tenant)}, ns)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return err
	case ns.Labels[LabelManagedBy] == "disco" && ns.Labels[discov1.LabelTenant] == tenant.ID():
		if err := r.Delete(ctx, ns); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return removeFinalizer(ctx, r.Client, tenant)
}

func (r *TenantReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&discov1.Tenant{}).
		Owns(&corev1.Namespace{}).
		Owns(&corev1.ResourceQuota{}).
		Owns(&corev1.LimitRange{}).
		// A run that starts, queues or ends changes its tenant's counts.
		Watches(&discov1.Run{}, handler.EnqueueRequestsFromMapFunc(r.tenantOfRun), builder.WithPredicates(runPhaseChanged())).
		Named("tenant").
		Complete(r)
}

func (r *TenantReconciler) tenantOfRun(ctx context.Context, o client.Object) []reconcile.Request {
	t := tenancy.TenantOf(ctx, r.Client, o.GetNamespace())
	if t == nil {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Name: t.Name}}}
}

// runPhaseChanged passes run creations, deletions and phase changes.
func runPhaseChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			return e.ObjectOld.(*discov1.Run).Status.Phase != e.ObjectNew.(*discov1.Run).Status.Phase
		},
	}
}
