package controllers

import (
	"strings"

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

// A Tenant applied with kubectl under a person's name (issue 14, item 6): its id is derived
// from the name, and everything that names the tenant by id finds it.
var _ = Describe("A human-named Tenant", func() {
	It("gets a derived id, its namespace, projects that become Ready and API keys of its id", func() {
		name := "lab-" + strings.ToLower(ids.New("x")[2:10])
		tenant := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: discov1.TenantSpec{Tier: discov1.TenantTierTeam, APIKeys: []discov1.TenantAPIKey{{Name: "ci"}}}}
		Expect(k8sClient.Create(ctx, tenant)).To(Succeed())
		id := discov1.PublicIDFor(ids.Tenant, "", name)
		Expect(ids.Valid(ids.Tenant, id)).To(BeTrue())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(tenant), tenant)).To(Succeed())
			g.Expect(tenant.Status.ID).To(Equal(id))
			g.Expect(tenant.Labels).To(HaveKeyWithValue(discov1.LabelID, id))
			g.Expect(tenant.Status.Namespace).To(Equal("disco-" + name))
			g.Expect(meta.IsStatusConditionTrue(tenant.Status.Conditions, discov1.ConditionReady)).To(BeTrue())
		}).Should(Succeed())
		ns := tenant.Status.Namespace
		namespace := &corev1.Namespace{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Name: ns}, namespace)).To(Succeed())
		Expect(namespace.Labels).To(HaveKeyWithValue(discov1.LabelTenant, id))

		project := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "optics", Namespace: ns}}
		Expect(k8sClient.Create(ctx, project)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(project), project)).To(Succeed())
			g.Expect(project.Status.TenantID).To(Equal(id))
			g.Expect(reasonOf(project.Status.Conditions, discov1.ConditionReady)).To(Equal(discov1.ReasonReady))
		}).Should(Succeed())

		secret := &corev1.Secret{}
		Eventually(func() error {
			return k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "disco-api-key-ci"}, secret)
		}).Should(Succeed())
		Expect(string(secret.Data[SecretKeyTenantID])).To(Equal(id))
		key, err := testStore.APIKeyByID(ctx, id, string(secret.Data[SecretKeyAPIKeyID]))
		Expect(err).NotTo(HaveOccurred())
		Expect(key.TenantID).To(Equal(id))
	})

	It("is refused when its name cannot name its default namespace", func() {
		for _, name := range []string{"physics.lab", "a" + strings.Repeat("b", 57)} {
			err := k8sClient.Create(ctx, &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: name}})
			Expect(apierrors.IsInvalid(err)).To(BeTrue(), "tenant %q: %v", name, err)
			Expect(err.Error()).To(ContainSubstring("set spec.namespace"))
		}
		ok := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "physics.lab." + strings.ToLower(ids.New("x")[2:8])},
			Spec: discov1.TenantSpec{Namespace: "optics-" + strings.ToLower(ids.New("x")[2:8])}}
		Expect(k8sClient.Create(ctx, ok)).To(Succeed())
	})
})
