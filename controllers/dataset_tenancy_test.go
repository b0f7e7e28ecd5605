package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/datasource"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/tenancy"
)

var (
	realProfilerOnce sync.Once
	realProfilerImpl *routedProfiler
)

// routedProfiler is the blob profiler, except for datasets whose display name asks for a
// failure that carries a server path.
type routedProfiler struct {
	blob    *BlobProfiler
	scratch string
	gate    chan struct{} // "real-gated" datasets wait for it to close
}

func (p *routedProfiler) Profile(ctx context.Context, ds *discov1.Dataset, keys DatasetKeys) (ProfileResult, error) {
	switch ds.Spec.DisplayName {
	case "real-storage-error":
		return ProfileResult{}, fmt.Errorf("copy the dataset file: read %s/profile-1: input/output error", p.scratch)
	case "real-unusable-path":
		return ProfileResult{}, &ProfileError{Message: "cannot read the dataset: read " + p.scratch + "/profile-2: input/output error"}
	case "real-gated":
		<-p.gate
	}
	return p.blob.Profile(ctx, ds, keys)
}

// realProfiler profiles datasets named "real-..." from testBlob (see fakeProfiler).
func realProfiler() Profiler {
	realProfilerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "profiler-")
		if err != nil {
			panic(err)
		}
		realProfilerImpl = &routedProfiler{blob: &BlobProfiler{Blob: testBlob, ScratchDir: dir, Sources: datasource.Opener{Reader: k8sClient}, MaxSourceBytes: 64 << 10},
			scratch: dir, gate: make(chan struct{})}
	})
	return realProfilerImpl
}

// tenantIDOf is the tenant id a tenant namespace belongs to.
func tenantIDOf(ns string) string {
	t := tenancy.TenantOf(ctx, k8sClient, ns)
	Expect(t).NotTo(BeNil(), "namespace %s has no tenant", ns)
	return ids.FromName(t.Name)
}

// tenantBlobKey is a key under the tenant's dataset prefix, as the facade writes them.
func tenantBlobKey(ns, projectID string) string {
	return blob.DatasetKey(tenantIDOf(ns), ns, projectID, ids.New(ids.Dataset))
}

// storeFile puts body under key and returns a Dataset spec naming it, size and hash
// included; the display name "real-..." has the real profiler read it.
func storeFile(key, projectID string, body []byte) discov1.DatasetSpec {
	Expect(testBlob.Put(ctx, key, body)).To(Succeed())
	sum := sha256.Sum256(body)
	return discov1.DatasetSpec{ProjectID: projectID, DisplayName: "real-file", Format: "csv", BlobKey: key,
		SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}
}

func createDataset(ns, id string, spec discov1.DatasetSpec) *discov1.Dataset {
	ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: ns}, Spec: spec}
	Expect(k8sClient.Create(ctx, ds)).To(Succeed())
	return ds
}

// expectFailed waits for the dataset to fail with the reason, as its condition and as an
// event, and returns it.
func expectFailed(ds *discov1.Dataset, reason string) *discov1.Dataset {
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
		g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetFailed))
		c := meta.FindStatusCondition(ds.Status.Conditions, discov1.ConditionReady)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(reason))
		g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
	}).Should(Succeed())
	Eventually(func() []string { return eventReasons(ds.Namespace, ds.Name) }).Should(ContainElement(reason))
	return ds
}

func smallCSV(rows int) []byte {
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d,%d\n", i, i*i)
	}
	return []byte(b.String())
}

var _ = Describe("Dataset blob keys, verification and limits", func() {
	It("profiles a tenant's own upload and stores the profile under the tenant", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		body := smallCSV(20)
		ds := createDataset(ns, ids.New(ids.Dataset), storeFile(tenantBlobKey(ns, ids.FromName(p.Name)), ids.FromName(p.Name), body))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady))
		}).Should(Succeed())
		Expect(ds.Status.Rows).To(BeEquivalentTo(20))
		Expect(ds.Status.Variables).To(Equal([]string{"x", "y"}))
		Expect(ds.Status.ProfileKey).To(Equal(blob.DatasetProfileKey(ids.FromName(tenant.Name), ns, ds.Name, string(ds.UID))))
		rc, err := testBlob.Get(ctx, ds.Status.ProfileKey)
		Expect(err).NotTo(HaveOccurred())
		defer rc.Close()
		var prof data.Profile
		Expect(json.NewDecoder(rc).Decode(&prof)).To(Succeed())
		Expect(prof.RowCount).To(Equal(20))
	})

	It("fails a dataset whose blobKey names another tenant's upload", func() {
		tenantA, nsA := newTenant()
		tenantB, nsB := newTenant()
		pA, pB := newProject(tenantA, nsA), newProject(tenantB, nsB)
		// Tenant B's upload, named from tenant A's namespace.
		spec := storeFile(tenantBlobKey(nsB, ids.FromName(pB.Name)), ids.FromName(pA.Name), smallCSV(20))
		ds := expectFailed(createDataset(nsA, ids.New(ids.Dataset), spec), discov1.ReasonBlobKeyOutsideTenant)
		Expect(ds.Status.Rows).To(BeZero())
		Expect(ds.Status.ProfileKey).To(BeEmpty())
		Expect(ds.Status.Message).To(ContainSubstring("outside this tenant"))
		// The same file named from its own tenant is profiled.
		spec.ProjectID = ids.FromName(pB.Name)
		own := createDataset(nsB, ids.New(ids.Dataset), spec)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(own), own)).To(Succeed())
			g.Expect(own.Status.Phase).To(Equal(discov1.DatasetReady))
		}).Should(Succeed())
	})

	It("fails URL and path keys instead of profiling forever", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		for _, key := range []string{"s3://bucket/data.csv", "file:///srv/data.csv", "/etc/passwd", "../other/data", "https://example.com/x.csv"} {
			ds := createDataset(ns, ids.New(ids.Dataset), discov1.DatasetSpec{ProjectID: ids.FromName(p.Name), DisplayName: "real-url", Format: "csv",
				BlobKey: key, SizeBytes: 1, SHA256: strings.Repeat("0", 64)})
			ds = expectFailed(ds, discov1.ReasonBlobKeyNotAKey)
			Expect(ds.Status.Message).To(ContainSubstring("not a blob key"), key)
		}
	})

	It("checks spec.sizeBytes and spec.sha256 against the stored file", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		spec := storeFile(tenantBlobKey(ns, ids.FromName(p.Name)), ids.FromName(p.Name), smallCSV(20))
		badHash := spec
		badHash.SHA256 = strings.Repeat("a", 64)
		expectFailed(createDataset(ns, ids.New(ids.Dataset), badHash), discov1.ReasonChecksumMismatch)
		for _, size := range []int64{spec.SizeBytes - 1, spec.SizeBytes + 1} {
			badSize := spec
			badSize.SizeBytes = size
			ds := expectFailed(createDataset(ns, ids.New(ids.Dataset), badSize), discov1.ReasonSizeMismatch)
			Expect(ds.Status.Message).To(ContainSubstring("spec.sizeBytes"))
		}
	})

	It("fails a file wider than 4096 columns once, with the limit", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		header := make([]string, data.MaxColumns+1)
		for j := range header {
			header[j] = fmt.Sprintf("c%d", j)
		}
		wide := strings.Join(header, ",") + "\n" + strings.Repeat("1,", len(header)-1) + "1\n"
		ds := createDataset(ns, ids.New(ids.Dataset), storeFile(tenantBlobKey(ns, ids.FromName(p.Name)), ids.FromName(p.Name), []byte(wide)))
		ds = expectFailed(ds, discov1.ReasonDatasetTooWide)
		Expect(ds.Status.Message).To(ContainSubstring("4097 columns"))
		Expect(ds.Status.Message).To(ContainSubstring("4096"))
		Expect(ds.Status.Variables).To(BeEmpty())
	})

	It("reads the earlier key layout only for the dataset the facade wrote it for", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		id := ids.New(ids.Dataset)
		spec := storeFile(blob.LegacyDatasetKey(ids.FromName(p.Name), id), ids.FromName(p.Name), smallCSV(20))
		own := createDataset(ns, id, spec)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(own), own)).To(Succeed())
			g.Expect(own.Status.Phase).To(Equal(discov1.DatasetReady))
		}).Should(Succeed())
		// Another dataset naming that key, in the same or another tenant, is refused.
		expectFailed(createDataset(ns, ids.New(ids.Dataset), spec), discov1.ReasonBlobKeyOutsideTenant)
		other, otherNS := newTenant()
		spec.ProjectID = ids.FromName(newProject(other, otherNS).Name)
		expectFailed(createDataset(otherNS, ids.New(ids.Dataset), spec), discov1.ReasonBlobKeyOutsideTenant)
	})

	It("keeps server paths out of the status, conditions and events", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		scratchDir := realProfiler().(*routedProfiler).scratch
		unusable := storeFile(tenantBlobKey(ns, ids.FromName(p.Name)), ids.FromName(p.Name), smallCSV(3))
		unusable.DisplayName = "real-unusable-path"
		ds := expectFailed(createDataset(ns, ids.New(ids.Dataset), unusable), discov1.ReasonProfilingFailed)
		Expect(ds.Status.Message).To(ContainSubstring("input/output error"))
		Expect(ds.Status.Message).NotTo(ContainSubstring(scratchDir))

		storage := unusable
		storage.DisplayName = "real-storage-error"
		ds = createDataset(ns, ids.New(ids.Dataset), storage)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			c := meta.FindStatusCondition(ds.Status.Conditions, discov1.ConditionReady)
			g.Expect(c).NotTo(BeNil())
			g.Expect(c.Reason).To(Equal("ProfilingError"))
			g.Expect(c.Message).To(ContainSubstring("input/output error"))
			g.Expect(c.Message).NotTo(ContainSubstring(scratchDir))
		}).Should(Succeed())
		Expect(ds.Status.Phase).To(Equal(discov1.DatasetProfiling))
	})

	It("reconciles other datasets while one is being profiled", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		gated := storeFile(tenantBlobKey(ns, ids.FromName(p.Name)), ids.FromName(p.Name), smallCSV(5))
		gated.DisplayName = "real-gated"
		slow := createDataset(ns, ids.New(ids.Dataset), gated)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(slow), slow)).To(Succeed())
			g.Expect(meta.FindStatusCondition(slow.Status.Conditions, discov1.ConditionReady)).NotTo(BeNil())
		}).Should(Succeed())
		// The profile of slow is under way; another dataset is still reconciled.
		expectFailed(createDataset(ns, ids.New(ids.Dataset), discov1.DatasetSpec{ProjectID: ids.FromName(p.Name), DisplayName: "x", Format: "csv",
			BlobKey: "s3://bucket/x.csv", SizeBytes: 1, SHA256: strings.Repeat("0", 64)}), discov1.ReasonBlobKeyNotAKey)
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(slow), slow)).To(Succeed())
		Expect(slow.Status.Phase).To(Equal(discov1.DatasetProfiling))
		close(realProfiler().(*routedProfiler).gate)
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(slow), slow)).To(Succeed())
			g.Expect(slow.Status.Phase).To(Equal(discov1.DatasetReady))
		}).Should(Succeed())
	})

	It("profiles again a ready dataset whose profile another tenant could have written", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "signals", Namespace: ns},
			Spec: storeFile(tenantBlobKey(ns, ids.FromName(p.Name)), ids.FromName(p.Name), smallCSV(20))}
		Expect(k8sClient.Create(ctx, ds)).To(Succeed())
		own := blob.DatasetProfileKey(ids.FromName(tenant.Name), ns, ds.Name, string(ds.UID))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady))
			g.Expect(ds.Status.ProfileKey).To(Equal(own))
		}).Should(Succeed())
		// As stored before keys named the tenant: datasets/<name>/profile.json, which a
		// same-named dataset of any tenant wrote to.
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			ds.Status.ProfileKey = blob.LegacyDatasetProfileKey(ds.Name)
			g.Expect(k8sClient.Status().Update(ctx, ds)).To(Succeed())
		}).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
			g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady))
			g.Expect(ds.Status.ProfileKey).To(Equal(own))
		}).Should(Succeed())
	})
})
