package controllers

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// LabelManagedBy marks namespaces disco created, so deletion only removes its own.
const LabelManagedBy = "app.kubernetes.io/managed-by"

// TenantNamespace is the namespace a tenant's objects live in.
func TenantNamespace(t *discov1.Tenant) string {
	if t.Spec.Namespace != "" {
		return t.Spec.Namespace
	}
	return "disco-" + t.Name
}

// TenantReconciler ensures each tenant has its namespace, labelled with the tenant id.
type TenantReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

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
	if controllerutil.AddFinalizer(tenant, discov1.Finalizer) {
		return ctrl.Result{}, r.Update(ctx, tenant)
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, tenant)
	created := false
	defer func() {
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil && created {
			r.Recorder.Eventf(tenant, nil, corev1.EventTypeNormal, "NamespaceCreated", "EnsureNamespace", "created namespace %s", tenant.Status.Namespace)
		}
	}()

	name := TenantNamespace(tenant)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	op, err := controllerutil.CreateOrPatch(ctx, r.Client, ns, func() error {
		if owner := ns.Labels[discov1.LabelTenant]; owner != "" && owner != ids.FromName(tenant.Name) {
			return fmt.Errorf("namespace %s belongs to tenant %s", name, owner)
		}
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[discov1.LabelTenant] = ids.FromName(tenant.Name)
		if ns.CreationTimestamp.IsZero() {
			// Only a namespace disco creates is disco's to delete with the tenant; an
			// existing namespace named in spec.namespace is labelled but never owned.
			ns.Labels[LabelManagedBy] = "disco"
			return controllerutil.SetControllerReference(tenant, ns, r.Scheme())
		}
		return nil
	})
	if err != nil {
		setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionFalse, "NamespaceFailed", err.Error())
		return ctrl.Result{}, err
	}
	created = op == controllerutil.OperationResultCreated
	if err := ensureEngineRBAC(ctx, r.Client, tenant, name); err != nil {
		setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionFalse, "EngineRBACFailed", err.Error())
		return ctrl.Result{}, err
	}
	tenant.Status.Namespace = name
	setCondition(&tenant.Status.Conditions, tenant, discov1.ConditionReady, metav1.ConditionTrue, "NamespaceReady", "namespace "+name+" is ready")
	log.FromContext(ctx).V(1).Info("tenant reconciled", "namespace", name, "op", op)
	return ctrl.Result{}, nil
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
	case ns.Labels[LabelManagedBy] == "disco" && ns.Labels[discov1.LabelTenant] == ids.FromName(tenant.Name):
		if err := r.Delete(ctx, ns); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	controllerutil.RemoveFinalizer(tenant, discov1.Finalizer)
	return r.Update(ctx, tenant)
}

func (r *TenantReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&discov1.Tenant{}).
		Owns(&corev1.Namespace{}).
		Named("tenant").
		Complete(r)
}
