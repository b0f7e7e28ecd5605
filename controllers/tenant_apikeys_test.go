package controllers

import (
	"crypto/sha256"
	"encoding/hex"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// A Tenant applied with kubectl declares its REST API keys (issue 14, item 7).
var _ = Describe("Tenant API keys", func() {
	// keyIn waits for the Secret of the entry and returns the stored key its plaintext
	// authenticates as (found by its hash, as the REST API finds it).
	keyIn := func(ns, name string) (store.APIKey, *corev1.Secret) {
		s := &corev1.Secret{}
		var k store.APIKey
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "disco-api-key-" + name}, s)).To(Succeed())
			sum := sha256.Sum256(s.Data[SecretKeyAPIKey])
			var err error
			k, err = testStore.APIKeyByHash(ctx, hex.EncodeToString(sum[:]))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(k.RevokedAt).To(BeNil())
		}).Should(Succeed())
		return k, s
	}
	revoked := func(tenantID, id string) func(g Gomega) {
		return func(g Gomega) {
			k, err := testStore.APIKeyByID(ctx, tenantID, id)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(k.RevokedAt).NotTo(BeNil(), "key %s is still active", id)
		}
	}

	It("issues each key into its Secret, reissues a lost one, and revokes a removed one", func() {
		t, ns := newTenant()
		tenantID := ids.FromName(t.Name)
		update(t, func() {
			t.Spec.APIKeys = []discov1.TenantAPIKey{{Name: "ci", Scopes: []string{"runs:write", "projects:read"}}, {Name: "admin"}}
		})

		ci, secret := keyIn(ns, "ci")
		Expect(ci.TenantID).To(Equal(tenantID))
		Expect(ci.Scopes).To(Equal([]string{"projects:read", "runs:write"}))
		Expect(string(secret.Data[SecretKeyTenantID])).To(Equal(tenantID))
		Expect(string(secret.Data[SecretKeyAPIKeyID])).To(Equal(ci.ID))
		Expect(secret.OwnerReferences).To(HaveLen(1))
		admin, _ := keyIn(ns, "admin")
		Expect(admin.Scopes).To(ConsistOf(discov1.APIKeyScopes))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(t), t)).To(Succeed())
			g.Expect(t.Status.APIKeys).To(ConsistOf(
				HaveField("ID", ci.ID), HaveField("ID", admin.ID)))
		}).Should(Succeed())

		// A deleted Secret is made again with a new key; the old key stops working.
		Expect(k8sClient.Delete(ctx, secret)).To(Succeed())
		update(t, func() {
			t.Spec.APIKeys[0].Scopes = []string{"runs:write", "projects:read", "claims:read"} // and a change triggers the reconcile
		})
		Eventually(func(g Gomega) {
			k, _ := keyIn(ns, "ci")
			g.Expect(k.ID).NotTo(Equal(ci.ID))
			g.Expect(k.Scopes).To(Equal([]string{"claims:read", "projects:read", "runs:write"}))
		}).Should(Succeed())
		Eventually(revoked(tenantID, ci.ID)).Should(Succeed())

		// A removed entry is revoked and its Secret deleted; the other stays.
		update(t, func() { t.Spec.APIKeys = t.Spec.APIKeys[:1] })
		Eventually(revoked(tenantID, admin.ID)).Should(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "disco-api-key-admin"}, &corev1.Secret{}))
		}).Should(BeTrue())
		keyIn(ns, "ci")
	})

	It("leaves alone a Secret of that name it did not make", func() {
		t, ns := newTenant()
		mine := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "disco-api-key-ci", Namespace: ns}, StringData: map[string]string{"x": "y"}}
		Expect(k8sClient.Create(ctx, mine)).To(Succeed())
		update(t, func() { t.Spec.APIKeys = []discov1.TenantAPIKey{{Name: "ci"}} })
		Eventually(func() []string { return eventReasons("", t.Name) }).Should(ContainElement("APIKeySecretTaken"))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(mine), mine)).To(Succeed())
		Expect(mine.Data).To(Equal(map[string][]byte{"x": []byte("y")}))
		keys, err := testStore.ListAPIKeys(ctx, ids.FromName(t.Name), 100, "")
		Expect(err).NotTo(HaveOccurred())
		Expect(keys).To(BeEmpty())
	})

	It("is refused by the API server for a scope the REST API does not have", func() {
		t, _ := newTenant()
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(t), t)).To(Succeed())
		t.Spec.APIKeys = []discov1.TenantAPIKey{{Name: "ci", Scopes: []string{"everything"}}}
		err := k8sClient.Update(ctx, t)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("Unsupported value"))
	})
})
