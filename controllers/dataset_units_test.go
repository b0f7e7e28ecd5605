package controllers

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// A Dataset manifest may declare its columns' units (issue 18 item 2). The webhook parses
// them as the REST facade does, the CRD bounds them, and profiling fails a dataset whose
// units name a column the file lacks.
var _ = Describe("Dataset units", func() {
	manifest := func(t *discov1.Tenant, ns, name string, units map[string]string) *discov1.Dataset {
		p := newProject(t, ns)
		Expect(k8sClient.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Data: map[string]string{"table.csv": string(smallCSV(30))}})).To(Succeed())
		return &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: discov1.DatasetSpec{
			ProjectRef: &discov1.ObjectRef{Name: p.Name}, Format: "csv", Units: units,
			Source: &discov1.DatasetSource{ConfigMapRef: &discov1.ConfigMapKeyRef{Name: name, Key: "table.csv"}}}}
	}

	It("is refused at admission when a unit does not parse, naming the column and the syntax", func() {
		t, ns := newTenant()
		err := asAdmin().Create(ctx, manifest(t, ns, "bad", map[string]string{"x": "m", "y": "kg*m/s^"}))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
		Expect(err.Error()).To(And(ContainSubstring(`column "y"`), ContainSubstring(`"kg*m/s^"`), ContainSubstring("kg*m/s^2")))
	})

	It("is refused by the API server when a column name or a unit is out of bounds", func() {
		t, ns := newTenant()
		err := asAdmin().Create(ctx, manifest(t, ns, "comma", map[string]string{"x,y": "m"}))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
		Expect(err.Error()).To(ContainSubstring("without ',' or '='"))
	})

	It("keeps valid units, and fails profiling when one names a column the file lacks", func() {
		t, ns := newTenant()
		ok := manifest(t, ns, "ok", map[string]string{"x": "s", "y": "m^2"})
		Expect(asAdmin().Create(ctx, ok)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ok), ok)).To(Succeed())
			g.Expect(ok.Status.Phase).To(Equal(discov1.DatasetReady), "status %+v", ok.Status)
		}).Should(Succeed())
		Expect(ok.Spec.Units).To(Equal(map[string]string{"x": "s", "y": "m^2"}))

		missing := manifest(t, ns, "missing", map[string]string{"x": "s", "z": "m"})
		Expect(asAdmin().Create(ctx, missing)).To(Succeed())
		Expect(expectFailed(missing, discov1.ReasonProfilingFailed).Status.Message).To(
			And(ContainSubstring(`"z"`), ContainSubstring("which the file does not have")))
	})
})
