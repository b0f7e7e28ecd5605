package controllers

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	testingclock "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/discolab/disco/admission"
	"github.com/discolab/disco/admission/local"
	discov1 "github.com/discolab/disco/api/v1alpha1"
	rbacconfig "github.com/discolab/disco/config/rbac"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/runexec"
)

var (
	cfg       *rest.Config // disco's component identity (the manager's)
	adminCfg  *rest.Config // system:masters, not a disco component: passes the webhooks like any user
	k8sClient client.Client
	// testStore holds the ledger and the API keys Tenants' spec.apiKeys issue.
	testStore *store.Store
	testEnv   *envtest.Environment
	ctx       context.Context
	cancel    context.CancelFunc
	// testClock is every reconciler's and webhook's clock; specs step it to expire budgets.
	testClock = testingclock.NewFakeClock(time.Now())

	testBlob   *blob.Bucket
	testLedger *ledger.Ledger
	testEvents *recordingPublisher
	testJobs   *runexec.JobExecutor
	// testExecution plays the Job's pod: what `disco engine run` does inside it.
	testExecution *runexec.Execution
)

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	ctx, cancel = context.WithCancel(context.Background()) //nolint:fatcontext // the suite's one context, set once in BeforeSuite
	// Reconciles are asynchronous, and at a load average of 25 on a shared 2-core machine a
	// reconcile queued behind the others took longer than 15 s. An Eventually returns as soon
	// as it holds, so the bound costs only a failing spec's time.
	SetDefaultEventuallyTimeout(45 * time.Second)

	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		os.Setenv("KUBEBUILDER_ASSETS", filepath.Join("..", "bin", "k8s"))
	}
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	Expect(local.Install(testEnv)).To(Succeed())
	var err error
	adminCfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "start envtest; run `make envtest` to build the control plane")
	// The manager, and the tests' setup client, act as disco's component identity, which
	// the admission webhooks trust; users are made with newUser.
	component, err := testEnv.AddUser(envtest.User{Name: local.ComponentUser, Groups: []string{"system:masters"}}, nil)
	Expect(err).NotTo(HaveOccurred())
	cfg = component.Config()

	Expect(discov1.AddToScheme(scheme.Scheme)).To(Succeed())
	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
	roles, err := rbacconfig.UserRoles()
	Expect(err).NotTo(HaveOccurred())
	for _, r := range roles {
		Expect(k8sClient.Create(ctx, r)).To(Succeed())
	}

	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme.Scheme, Cache: index.CacheOptions(), Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: local.Server(testEnv)})
	Expect(err).NotTo(HaveOccurred())
	admission.Register(mgr, admission.Options{Identities: admission.Identities{Components: []string{local.ComponentUser}}, Clock: testClock})
	scratch := GinkgoT().TempDir()
	testBlob, err = blob.Open(ctx, "file://"+filepath.Join(scratch, "blobs"))
	Expect(err).NotTo(HaveOccurred())
	testStore, err = store.Open(ctx, "sqlite://"+filepath.Join(scratch, "disco.db"))
	Expect(err).NotTo(HaveOccurred())
	key, err := ledger.LoadOrCreateKey(filepath.Join(scratch, "ledger.key"))
	Expect(err).NotTo(HaveOccurred())
	testLedger, err = ledger.New(testStore, key.Signer)
	Expect(err).NotTo(HaveOccurred())
	local := &runexec.LocalExecutor{Workers: 2, Exec: &runexec.Execution{Client: mgr.GetClient(), Blob: testBlob, ScratchDir: scratch, TimeLimit: 20 * time.Second}}
	Expect(mgr.Add(local)).To(Succeed())
	testEvents = &recordingPublisher{}
	testJobs = &runexec.JobExecutor{Client: mgr.GetClient(), Image: "disco:test", BlobURL: "file:///blobs", TimeLimit: time.Minute}
	testExecution = &runexec.Execution{Client: mgr.GetClient(), Blob: testBlob, ScratchDir: scratch, TimeLimit: 20 * time.Second}
	Expect(Setup(ctx, mgr, Options{Clock: testClock, Profiler: &fakeProfiler{},
		Executor: &gatedExecutor{LocalExecutor: local, jobs: testJobs}, Fetcher: testJobs, Blob: testBlob, Ledger: testLedger, Events: testEvents, APIKeys: testStore})).To(Succeed())
	go func() {
		defer GinkgoRecover()
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
})

var _ = AfterSuite(func() {
	cancel()
	Expect(testEnv.Stop()).To(Succeed())
})
