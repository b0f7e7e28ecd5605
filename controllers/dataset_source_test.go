package controllers

import (
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
)

// Datasets declared in manifests with spec.source (issue 14, item 7), as a GitOps
// repository holds them: named by hand, their project by name, the table in a ConfigMap.
var _ = Describe("Dataset sources", func() {
	source := func(t *discov1.Tenant, ns, name, cm string) *discov1.Dataset {
		p := newProject(t, ns)
		ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: discov1.DatasetSpec{
			ProjectRef: &discov1.ObjectRef{Name: p.Name}, Format: "csv",
			Source: &discov1.DatasetSource{ConfigMapRef: &discov1.ConfigMapKeyRef{Name: cm, Key: "table.csv"}}}}
		return ds
	}
	configMap := func(ns, name string, body []byte) {
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Data: map[string]string{"table.csv": string(body)}})).To(Succeed())
	}
	ready := func(ds *discov1.Dataset) {
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady), "status %+v", ds.Status)
		}).Should(Succeed())
	}

	It("fetches a ConfigMap's table into the tenant's store, hashes and profiles it", func() {
		t, ns := newTenant()
		body := smallCSV(30)
		configMap(ns, "sachs", body)
		ds := source(t, ns, "sachs", "sachs")
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		ready(ds)
		sum := sha256.Sum256(body)
		Expect(ds.Status.Rows).To(BeEquivalentTo(30))
		Expect(ds.Status.Source).NotTo(BeNil())
		Expect(ds.Status.Source.SHA256).To(Equal(hex.EncodeToString(sum[:])))
		Expect(ds.Status.Source.SizeBytes).To(BeEquivalentTo(len(body)))
		Expect(ds.Status.Source.BlobKey).To(Equal(blob.DatasetSourceKey(tenantIDOf(ns), ns, ds.Name, string(ds.UID))))
		Expect(blob.UnderDatasetPrefix(tenantIDOf(ns), ns, ds.Status.Source.BlobKey)).To(BeTrue())
		Expect(ds.Status.Source.FetchedAt.IsZero()).To(BeFalse())
	})

	It("waits for a ConfigMap applied after the Dataset", func() {
		t, ns := newTenant()
		ds := source(t, ns, "later", "later")
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			c := meta.FindStatusCondition(ds.Status.Conditions, discov1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(discov1.ReasonSourceUnavailable))
			g.Expect(c.Message).To(ContainSubstring("ConfigMap later does not exist in namespace " + ns))
		}).Should(Succeed())
		Expect(ds.Status.Phase).To(Equal(discov1.DatasetProfiling))
		configMap(ns, "later", smallCSV(5))
		ready(ds)
		Expect(ds.Status.Rows).To(BeEquivalentTo(5))
	})

	It("fails a source whose content is not the one the manifest pins", func() {
		t, ns := newTenant()
		configMap(ns, "pinned", smallCSV(5))
		ds := source(t, ns, "pinned", "pinned")
		ds.Spec.SHA256 = strings.Repeat("a", 64)
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		expectFailed(ds, discov1.ReasonChecksumMismatch)
		Expect(ds.Status.Source).To(BeNil())
	})

	It("refuses a source larger than the installation fetches, and a file source it does not allow", func() {
		t, ns := newTenant()
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "big", Namespace: ns},
			BinaryData: map[string][]byte{"table.csv": []byte(strings.Repeat("1,2\n", (64<<10)/4+1))}})).To(Succeed())
		big := source(t, ns, "big", "big")
		Expect(k8sClient.Create(ctx, big)).To(Succeed())
		Expect(expectFailed(big, discov1.ReasonSourceRefused).Status.Message).To(ContainSubstring("larger than 65536 bytes"))

		file := source(t, ns, "file", "unused")
		file.Spec.Source = &discov1.DatasetSource{URL: "file:///srv/" + ns + "/x.csv"}
		Expect(k8sClient.Create(ctx, file)).To(Succeed())
		Expect(expectFailed(file, discov1.ReasonSourceRefused).Status.Message).To(ContainSubstring("--dataset-source-root"))
	})

	It("deletes the fetched file and the profile with the dataset", func() {
		t, ns := newTenant()
		configMap(ns, "gone", smallCSV(5))
		ds := source(t, ns, "gone", "gone")
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		ready(ds)
		Expect(ds.Finalizers).To(ContainElement(discov1.Finalizer))
		keys := []string{ds.Status.Source.BlobKey, ds.Status.ProfileKey}
		for _, key := range keys {
			Expect(testBlob.Exists(ctx, key)).To(BeTrue(), key)
		}
		Expect(k8sClient.Delete(ctx, ds)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), &discov1.Dataset{}))
		}).Should(BeTrue())
		for _, key := range keys {
			Expect(testBlob.Exists(ctx, key)).To(BeFalse(), key)
		}
	})

	It("accepts gs:// and azblob:// sources and refuses an endpoint the installation does not allow", func() {
		t, ns := newTenant()
		for name, u := range map[string]string{
			"gcs":   "gs://lab/x.csv?endpoint=http://169.254.169.254",
			"azure": "azblob://lab/x.csv?storage_account=labacct&endpoint=http://169.254.169.254",
		} {
			ds := source(t, ns, name, "unused")
			ds.Spec.Source = &discov1.DatasetSource{URL: u}
			Expect(k8sClient.Create(ctx, ds)).To(Succeed())
			Expect(expectFailed(ds, discov1.ReasonSourceRefused).Status.Message).To(ContainSubstring("is not one this installation allows"))
		}
	})

	It("never reads another tenant's Secret: a secretRef names a Secret of the dataset's namespace", func() {
		t, ns := newTenant()
		_, other := newTenant()
		Expect(k8sClient.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "gcs-key", Namespace: other},
			StringData: map[string]string{"service_account.json": "{}"}})).To(Succeed())
		ds := source(t, ns, "borrowed", "unused")
		ds.Spec.Source = &discov1.DatasetSource{URL: "gs://lab/x.csv", SecretRef: &discov1.ObjectRef{Name: "gcs-key"}}
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			c := meta.FindStatusCondition(ds.Status.Conditions, discov1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal(discov1.ReasonSourceUnavailable))
			g.Expect(c.Message).To(ContainSubstring("the Secret gcs-key does not exist in namespace " + ns))
		}).Should(Succeed())
		Expect(ds.Status.Source).To(BeNil())
	})

	It("is refused by the API server when the manifest is not a source it can fetch", func() {
		t, ns := newTenant()
		for _, c := range []struct {
			src  discov1.DatasetSource
			want string
		}{
			{discov1.DatasetSource{}, "exactly one of url, configMapRef and persistentVolumeClaim"},
			{discov1.DatasetSource{PersistentVolumeClaim: &discov1.PVCFileRef{ClaimName: "data", Path: "runs/../../other/x.csv"}},
				"path may not contain .. segments"},
			{discov1.DatasetSource{PersistentVolumeClaim: &discov1.PVCFileRef{ClaimName: "Data_1", Path: "x.csv"}}, "claimName"},
			{discov1.DatasetSource{URL: "https://bucket.example/x.csv"}, "url must be s3://bucket/key, gs://bucket/key, azblob://container/key or file:///path"},
			{discov1.DatasetSource{ConfigMapRef: &discov1.ConfigMapKeyRef{Name: "a", Key: "b"}, SecretRef: &discov1.ObjectRef{Name: "s"}}, "a configMapRef needs none"},
		} {
			ds := source(t, ns, "bad-"+ids.New(ids.Dataset)[3:13], "unused")
			ds.Spec.Source = &c.src
			err := k8sClient.Create(ctx, ds)
			Expect(err).To(HaveOccurred(), "%+v", c.src)
			Expect(err.Error()).To(ContainSubstring(c.want))
		}
		both := source(t, ns, "both", "unused")
		both.Spec.BlobKey = tenantBlobKey(ns, "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa")
		err := k8sClient.Create(ctx, both)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("exactly one of source"))
	})

	It("is refused at admission when its author may not read the ConfigMap or Secret it names", func() {
		t, ns := newTenant()
		configMap(ns, "private", smallCSV(5))
		name := "dora-" + ids.New(ids.Dataset)[3:11]
		editor := newUser(name, "disco-editor", ns)
		ds := source(t, ns, "peek", "private")
		err := editor.Create(ctx, ds)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.source names configmaps private"))
		withSecret := source(t, ns, "peek-s3", "unused")
		withSecret.Spec.Source = &discov1.DatasetSource{URL: "s3://bucket/x.csv", SecretRef: &discov1.ObjectRef{Name: "keys"}}
		err = editor.Create(ctx, withSecret)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.source names secrets keys"))
		withAzure := source(t, ns, "peek-az", "unused")
		withAzure.Spec.Source = &discov1.DatasetSource{URL: "azblob://lab/x.csv", SecretRef: &discov1.ObjectRef{Name: "az-keys"}}
		err = editor.Create(ctx, withAzure)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.source names secrets az-keys"))
		withClaim := source(t, ns, "peek-pvc", "unused")
		withClaim.Spec.Source = &discov1.DatasetSource{PersistentVolumeClaim: &discov1.PVCFileRef{ClaimName: "payroll", Path: "x.csv"}}
		err = editor.Create(ctx, withClaim)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.source names persistentvolumeclaims payroll"))

		// Given read access to the ConfigMap, the same author may make the dataset from it.
		Expect(k8sClient.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "read-private", Namespace: ns},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"private"}, Verbs: []string{"get"}}}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read-private", Namespace: ns},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: name, APIGroup: rbacv1.GroupName}},
			RoleRef:  rbacv1.RoleRef{Kind: "Role", Name: "read-private", APIGroup: rbacv1.GroupName}})).To(Succeed())
		Eventually(func() error { return editor.Create(ctx, source(t, ns, "allowed", "private")) }).Should(Succeed())
	})
})
