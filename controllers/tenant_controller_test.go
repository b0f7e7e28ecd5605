package controllers

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

var _ = Describe("Tenant controller", func() {
	It("creates the tenant namespace with its labels, a finalizer and a Ready condition", func() {
		tenant, ns := newTenant()
		Expect(ns).To(Equal("disco-" + tenant.Name))
		Expect(tenant.Finalizers).To(ContainElement(discov1.Finalizer))
		Expect(meta.IsStatusConditionTrue(tenant.Status.Conditions, discov1.ConditionReady)).To(BeTrue())

		namespace := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
		Expect(namespace.Labels).To(HaveKeyWithValue(discov1.LabelTenant, ids.FromName(tenant.Name)))
		Expect(namespace.Labels).To(HaveKeyWithValue(discov1.LabelManagedBy, "disco"))

		// No namespace-wide engine identity: each run's Job gets its own (issue 17 item 2).
		bindings := &rbacv1.RoleBindingList{}
		Expect(k8sClient.List(ctx, bindings, client.InNamespace(ns))).To(Succeed())
		Expect(bindings.Items).To(BeEmpty())
	})

	It("labels but never deletes a namespace it did not create", func() {
		existing := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "preexisting-" + ids.New("x")[2:12]}}
		Expect(k8sClient.Create(ctx, existing)).To(Succeed())
		tenant := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant))}, Spec: discov1.TenantSpec{Namespace: existing.Name}}
		Expect(k8sClient.Create(ctx, tenant)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Name: existing.Name}, existing)).To(Succeed())
			g.Expect(existing.Labels).To(HaveKeyWithValue(discov1.LabelTenant, ids.FromName(tenant.Name)))
		}).Should(Succeed())

		Expect(k8sClient.Delete(ctx, tenant)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), tenant))
		}).Should(BeTrue())
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: existing.Name}, existing)).To(Succeed())
		Expect(existing.DeletionTimestamp).To(BeNil())
	})

	It("deletes its own namespace when the tenant is deleted", func() {
		tenant, ns := newTenant()
		Expect(k8sClient.Delete(ctx, tenant)).To(Succeed())
		Eventually(func(g Gomega) {
			namespace := &corev1.Namespace{}
			err := k8sClient.Get(ctx, client.ObjectKey{Name: ns}, namespace)
			// envtest has no namespace controller, so the namespace stays Terminating.
			g.Expect(apierrors.IsNotFound(err) || namespace.DeletionTimestamp != nil).To(BeTrue())
		}).Should(Succeed())
	})

	It("refuses an unknown tier and a changed namespace", func() {
		bad := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant))}, Spec: discov1.TenantSpec{Tier: "platinum"}}
		err := k8sClient.Create(ctx, bad)
		Expect(apierrors.IsInvalid(err)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring("spec.tier"))

		tenant, _ := newTenant()
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), tenant)).To(Succeed())
			tenant.Spec.Namespace = "elsewhere"
			err := k8sClient.Update(ctx, tenant)
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(ContainSubstring("namespace is immutable"))
		}).Should(Succeed())
	})
})
