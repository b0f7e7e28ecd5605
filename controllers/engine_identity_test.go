package controllers

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/runexec"
)

// installManifest creates the objects of a YAML file from config/ (if not there yet).
func installManifest(path string) {
	raw, err := os.ReadFile(filepath.Join("..", "config", path))
	Expect(err).NotTo(HaveOccurred())
	for _, doc := range bytes.Split(raw, []byte("\n---")) {
		obj := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal(doc, &obj.Object)).To(Succeed())
		if len(obj.Object) == 0 {
			continue
		}
		if err := k8sClient.Create(ctx, obj); !apierrors.IsAlreadyExists(err) {
			Expect(err).NotTo(HaveOccurred(), "create %s from %s", obj.GetName(), path)
		}
	}
}

var enginePolicyOnce sync.Once

// installEnginePolicy installs the admission policy of config/rbac, as `make deploy` does.
func installEnginePolicy() {
	enginePolicyOnce.Do(func() { installManifest(filepath.Join("rbac", "engine_run_status_policy.yaml")) })
}

// as returns a client that acts as the given user (the apiserver authorizes it by RBAC).
func as(user string) client.Client {
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: user}
	cl, err := client.New(c, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
	return cl
}

// engineOf is the client of a run's engine: its Job's service account.
func engineOf(run *discov1.Run) client.Client {
	return as("system:serviceaccount:" + run.Namespace + ":" + runexec.EngineIdentity(run.Name))
}

// jobRun submits a run that the Job executor takes and waits for its Job.
func jobRun(p *discov1.Project, ds *discov1.Dataset, target string) *discov1.Run {
	run := submit(createCampaign(p, "job", 1000, 10, nil), ds, discov1.ModeSymbolic, target)
	Eventually(func() error { return k8sClient.Get(ctx, client.ObjectKeyFromObject(run), &batchv1.Job{}) }).Should(Succeed())
	Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
	return run
}

// otherTenantsRun is a Job run of a new tenant, labelled with its tenant id.
func otherTenantsRun() *discov1.Run {
	tenant, ns := newTenant()
	p := newProject(tenant, ns)
	run := jobRun(p, uploadCSV(p, linearCSV(50)), "y")
	if run.Labels == nil {
		run.Labels = map[string]string{}
	}
	run.Labels[discov1.LabelTenant] = ids.FromName(tenant.Name)
	return run
}

// isolatedRun submits a Job run of a new tenant and returns the Execution its pod runs:
// `disco engine run` as the run's engine identity, under the admission policy.
func isolatedRun(rows int, target string) (*discov1.Tenant, *discov1.Run, *runexec.Execution) {
	installEnginePolicy()
	tenant, ns := newTenant()
	p := newProject(tenant, ns)
	run := jobRun(p, uploadCSV(p, linearCSV(rows)), target)
	pod := &runexec.Execution{Client: engineOf(run), Blob: testBlob, ScratchDir: GinkgoT().TempDir(), TimeLimit: 20 * time.Second,
		Isolated: true, TenantID: ids.FromName(tenant.Name)}
	Eventually(func() error { return pod.Client.Get(ctx, client.ObjectKeyFromObject(run), &discov1.Run{}) }, 10*time.Second).Should(Succeed())
	return tenant, run, pod
}

// patchAs merges mutate into the run's status as the given client.
func patchAs(c client.Client, run *discov1.Run, mutate func(*discov1.Run)) error {
	latest := &discov1.Run{}
	if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(run), latest); err != nil {
		return err
	}
	before := latest.DeepCopy()
	mutate(latest)
	return c.Status().Patch(ctx, latest, client.MergeFrom(before))
}

var _ = Describe("Run engine identity (issue 17 item 2)", func() {
	It("gives each run's Job its own service account, with a Role naming only its run and dataset, owned by the run", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		ds := uploadCSV(p, linearCSV(50))
		run := jobRun(p, ds, "y")
		name := runexec.EngineIdentity(run.Name)

		job := &batchv1.Job{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), job)).To(Succeed())
		Expect(job.Spec.Template.Spec.ServiceAccountName).To(Equal(name))
		Expect(job.Spec.Template.Spec.Containers[0].Args).To(ContainElements("--tenant", ids.FromName(tenant.Name)))

		sa := &corev1.ServiceAccount{}
		role := &rbacv1.Role{}
		rb := &rbacv1.RoleBinding{}
		for _, obj := range []client.Object{sa, role, rb} {
			Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, obj)).To(Succeed())
			Expect(metav1.IsControlledBy(obj, run)).To(BeTrue(), "%T owned by the run", obj)
		}
		Expect(role.Rules).To(ConsistOf(
			rbacv1.PolicyRule{APIGroups: []string{discov1.GroupVersion.Group}, Resources: []string{"runs"}, ResourceNames: []string{run.Name}, Verbs: []string{"get"}},
			rbacv1.PolicyRule{APIGroups: []string{discov1.GroupVersion.Group}, Resources: []string{"runs/status"}, ResourceNames: []string{run.Name}, Verbs: []string{"get", "patch"}},
			rbacv1.PolicyRule{APIGroups: []string{discov1.GroupVersion.Group}, Resources: []string{"datasets"}, ResourceNames: []string{ds.Name}, Verbs: []string{"get"}},
		))
		Expect(rb.RoleRef).To(Equal(rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}))
		Expect(rb.Subjects).To(ConsistOf(rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}))
	})

	It("lets the engine write its own run's status and nothing of another run, in its namespace or another tenant's", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		ds := uploadCSV(p, linearCSV(50))
		run := jobRun(p, ds, "y")
		neighbour := jobRun(p, uploadCSV(p, linearCSV(50)), "y")
		foreign := otherTenantsRun()
		engine := engineOf(run)

		Eventually(func() error {
			return patchAs(engine, run, func(r *discov1.Run) { r.Status.Message = "engine was here" })
		}, 10*time.Second).Should(Succeed())
		Expect(engine.Get(ctx, client.ObjectKeyFromObject(ds), &discov1.Dataset{})).To(Succeed())

		for _, victim := range []*discov1.Run{neighbour, foreign} {
			err := patchAs(engine, victim, func(r *discov1.Run) { r.Status.ComputeUnitsUsed = 0; r.Status.Message = "pwned" })
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "status of %s/%s: %v", victim.Namespace, victim.Name, err)
			Expect(apierrors.IsForbidden(engine.Get(ctx, client.ObjectKeyFromObject(victim), &discov1.Run{}))).To(BeTrue())
			ds := &discov1.Dataset{}
			Expect(apierrors.IsForbidden(engine.Get(ctx, objectKey(victim.Namespace, victim.Spec.DatasetID), ds))).To(BeTrue())
		}
		Expect(apierrors.IsForbidden(engine.List(ctx, &discov1.RunList{}, client.InNamespace(ns)))).To(BeTrue())
		// Its own Run's spec and metadata are not its to write either.
		own := &discov1.Run{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), own)).To(Succeed())
		own.Labels["hijacked"] = "yes"
		Expect(apierrors.IsForbidden(engine.Update(ctx, own))).To(BeTrue())
	})

	It("refuses engine writes of compute usage, of a final phase and of keys outside the run's prefix", func() {
		installEnginePolicy()
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		run := jobRun(p, uploadCSV(p, linearCSV(50)), "y")
		engine := engineOf(run)
		keys := runexec.RunBlobs(run, ids.FromName(tenant.Name))
		foreign := otherTenantsRun()
		foreignKeys := runexec.RunBlobs(foreign, foreign.Labels[discov1.LabelTenant])

		units := int64(0)
		Eventually(func() error { // until the policy is in force
			units++
			return patchAs(engine, run, func(r *discov1.Run) { r.Status.ComputeUnitsUsed = units })
		}, 20*time.Second).Should(MatchError(ContainSubstring("computeUnitsUsed is charged by the controller")))

		started := metav1.NewTime(time.Now().Truncate(time.Second))
		Expect(patchAs(engine, run, func(r *discov1.Run) { r.Status.StartedAt = &started; r.Status.Phase = discov1.RunRunning })).To(Succeed())
		traversal := keys.Prefix() + "../../../../../" + strings.TrimPrefix(foreignKeys.Artifact("art_x", "g"), "runs/")
		for _, c := range []struct {
			message string
			mutate  func(*discov1.Run)
		}{
			{"startedAt cannot change", func(r *discov1.Run) { later := metav1.NewTime(started.Add(time.Hour)); r.Status.StartedAt = &later }},
			{"only the controller finishes a run", func(r *discov1.Run) { r.Status.Phase = discov1.RunCompleted }},
			{"resultsKey must lie under", func(r *discov1.Run) { r.Status.ResultsKey = foreignKeys.Results() }},
			{"artifacts[].key must lie under", func(r *discov1.Run) {
				r.Status.Artifacts = []discov1.ArtifactRef{{ID: "art_x", Name: "g", Kind: "plot", CreatedAt: metav1.Now(), Key: foreignKeys.Artifact("art_x", "g")}}
			}},
			{"artifacts[].key must lie under", func(r *discov1.Run) {
				r.Status.Artifacts = []discov1.ArtifactRef{{ID: "art_x", Name: "g", Kind: "plot", CreatedAt: metav1.Now(), Key: traversal}}
			}},
			// The names the controller resolved: another dataset for its Role, another
			// campaign for its budget (issue 14, item 2).
			{"the run's engine cannot change them", func(r *discov1.Run) { r.Status.DatasetRef = &discov1.ObjectRef{Name: "someone-elses"} }},
			{"the run's engine cannot change them", func(r *discov1.Run) { r.Status.CampaignRef = nil }},
		} {
			Expect(patchAs(engine, run, c.mutate)).To(MatchError(ContainSubstring(c.message)))
		}

		// Its own keys are fine; once its results are stored the run is the controller's.
		Expect(patchAs(engine, run, func(r *discov1.Run) {
			r.Status.ResultsKey = keys.Results()
			r.Status.Artifacts = []discov1.ArtifactRef{{ID: "art_x", Name: "g", Kind: "plot", CreatedAt: metav1.Now(), Key: keys.Artifact("art_x", "g")}}
			setCondition(&r.Status.Conditions, r, discov1.RunConditionResultsReady, metav1.ConditionTrue, "ResultsStored", "0 claims")
		})).To(Succeed())
		Expect(patchAs(engine, run, func(r *discov1.Run) { r.Status.Message = "again" })).To(MatchError(ContainSubstring("only the controller changes it now")))
	})

	It("executes a run as its engine identity, and the controller completes and charges it", func() {
		tenant, run, pod := isolatedRun(120, "y")
		ns := run.Namespace
		Expect(pod.Execute(ctx, run)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(discov1.RunCompleted), run.Status.Message)
		}, 30*time.Second).Should(Succeed())
		Expect(run.Status.ResultsKey).To(Equal(runexec.RunBlobs(run, ids.FromName(tenant.Name)).Results()))
		Expect(run.Status.ComputeUnitsUsed).To(BeNumerically(">=", 1))
		claims := &discov1.ClaimList{}
		Expect(k8sClient.List(ctx, claims, client.InNamespace(ns), client.MatchingLabels{discov1.LabelRun: ids.FromName(run.Name)})).To(Succeed())
		Expect(claims.Items).To(HaveLen(int(run.Status.ClaimsCount)))
		Expect(claims.Items).NotTo(BeEmpty())
		var want []string
		for i := range claims.Items {
			want = append(want, runexec.ClaimID(ids.FromName(tenant.Name), run, i))
		}
		for _, c := range claims.Items {
			Expect(ids.FromName(c.Name)).To(BeElementOf(want))
		}
	})

	It("finishes a run whose isolated engine failed, with the engine's reason", func() {
		_, run, pod := isolatedRun(50, "nope")
		Expect(pod.Execute(ctx, run)).To(MatchError(ContainSubstring("nope")))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), run)).To(Succeed())
			g.Expect(run.Status.Phase).To(Equal(discov1.RunFailed))
			g.Expect(run.Status.Message).To(ContainSubstring("nope"))
		}).Should(Succeed())
		Expect(run.Status.CompletedAt).NotTo(BeNil())
		Eventually(func() int { return len(testEvents.ofType("run.failed", ids.FromName(run.Name))) }).Should(Equal(1))
	})

	It("charges a Job's run from the Job's own start and end, whatever the engine wrote", func() {
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		run := jobRun(p, uploadCSV(p, linearCSV(50)), "y")
		job := &batchv1.Job{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(run), job)).To(Succeed())
		start := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
		end := metav1.NewTime(start.Add(90 * time.Second))
		job.Status.StartTime = &start
		job.Status.Conditions = []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", LastTransitionTime: end},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", LastTransitionTime: end},
		}
		Expect(k8sClient.Status().Update(ctx, job)).To(Succeed())
		Eventually(func(g Gomega) { // the executor reads Jobs from the manager's cache
			g.Expect(testJobs.Client.Get(ctx, client.ObjectKeyFromObject(job), job)).To(Succeed())
			g.Expect(job.Status.StartTime).NotTo(BeNil())
		}).Should(Succeed())

		// What an engine would claim: it started just now and used one unit.
		claimed := run.DeepCopy()
		now := metav1.Now()
		claimed.Status.StartedAt, claimed.Status.ComputeUnitsUsed = &now, 1
		Expect(runexec.ChargedUnits(ctx, testJobs, claimed, time.Now())).To(BeEquivalentTo(90))
		// Without a record of its own the executor charges from startedAt.
		Expect(runexec.ChargedUnits(ctx, &runexec.LocalExecutor{}, claimed, now.Add(30*time.Second))).To(BeEquivalentTo(30))
	})

	It("the manager's ClusterRole (config/rbac/role.yaml) may grant the engine identity, holding what it grants", func() {
		installManifest(filepath.Join("rbac", "role.yaml"))
		user := "disco-test-manager"
		Expect(client.IgnoreAlreadyExists(k8sClient.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "disco-manager"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}},
		}))).To(Succeed())
		tenant, ns := newTenant()
		p := newProject(tenant, ns)
		run := newRun(newCampaign(p, 100, 5, nil), 1) // never executed: the identity is made here
		manager := &runexec.JobExecutor{Client: as(user)}
		Eventually(func() error { return manager.EnsureIdentity(ctx, run) }, 10*time.Second).Should(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: runexec.EngineIdentity(run.Name)}, &rbacv1.Role{})).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: runexec.EngineIdentity(run.Name)}, &rbacv1.RoleBinding{})).To(Succeed())
	})

	It("removes the namespace-wide engine grant earlier versions made, and leaves others' objects alone", func() {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "legacy-" + ids.New("x")[2:12]}}
		Expect(k8sClient.Create(ctx, ns)).To(Succeed())
		disco := map[string]string{discov1.LabelManagedBy: "disco"}
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: LegacyEngineServiceAccount, Namespace: ns.Name, Labels: disco},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "disco-engine"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: LegacyEngineServiceAccount, Namespace: ns.Name}}}
		Expect(k8sClient.Create(ctx, rb)).To(Succeed())
		// Someone else's service account of the same name is not disco's to delete.
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: LegacyEngineServiceAccount, Namespace: ns.Name}}
		Expect(k8sClient.Create(ctx, sa)).To(Succeed())

		tenant := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant))}, Spec: discov1.TenantSpec{Namespace: ns.Name}}
		Expect(k8sClient.Create(ctx, tenant)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(k8sClient.Get(ctx, client.ObjectKeyFromObject(rb), &rbacv1.RoleBinding{}))
		}).Should(BeTrue())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(sa), sa)).To(Succeed())
	})
})
