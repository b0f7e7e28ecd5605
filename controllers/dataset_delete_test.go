package controllers

import (
	"crypto/sha256"
	"encoding/hex"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
)

// What is stored for an uploaded dataset alone goes with it: its profile, and the file the
// REST API uploaded for it; a file another dataset names stays for that one.
var _ = Describe("Deleting an uploaded Dataset", func() {
	It("deletes its own upload and profile, and leaves an upload it only names", func() {
		t, ns := newTenant()
		p := newProject(t, ns)
		body := smallCSV(12)
		sum := sha256.Sum256(body)
		id := ids.New(ids.Dataset)
		upload := blob.DatasetKey(tenantIDOf(ns), ns, p.ID(), id)
		Expect(testBlob.Put(ctx, upload, body)).To(Succeed())
		dataset := func(name string) *discov1.Dataset {
			ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: discov1.DatasetSpec{
				ProjectID: p.ID(), DisplayName: "real-" + name, Format: "csv", BlobKey: upload,
				SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}}
			Expect(k8sClient.Create(ctx, ds)).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), ds)).To(Succeed())
				g.Expect(ds.Status.Phase).To(Equal(discov1.DatasetReady), "status %+v", ds.Status)
			}).Should(Succeed())
			Expect(ds.Finalizers).To(ContainElement(discov1.Finalizer))
			return ds
		}
		gone := func(ds *discov1.Dataset) {
			Expect(k8sClient.Delete(ctx, ds)).To(Succeed())
			Eventually(func() bool {
				return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(ds), &discov1.Dataset{}))
			}).Should(BeTrue())
		}
		owner := dataset(ids.ToName(id))
		borrower := dataset("same-file")
		Expect(testBlob.Exists(ctx, borrower.Status.ProfileKey)).To(BeTrue())

		gone(borrower)
		Expect(testBlob.Exists(ctx, borrower.Status.ProfileKey)).To(BeFalse(), "the borrower's profile")
		Expect(testBlob.Exists(ctx, upload)).To(BeTrue(), "the upload of another dataset")

		gone(owner)
		Expect(testBlob.Exists(ctx, owner.Status.ProfileKey)).To(BeFalse(), "the owner's profile")
		Expect(testBlob.Exists(ctx, upload)).To(BeFalse(), "the owner's upload")
	})
})
