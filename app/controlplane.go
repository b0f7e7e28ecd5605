package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/discolab/disco/admission/local"
	"github.com/discolab/disco/config/crd"
	rbacconfig "github.com/discolab/disco/config/rbac"
)

// Versions of the control plane `make envtest` builds; used to find its cache.
const (
	kubeVersion = "v1.36.3"
	etcdVersion = "v3.6.5"
)

// controlPlane is an etcd and kube-apiserver started from local binaries, with etcd's data
// kept under the dev data dir so objects survive restarts.
type controlPlane struct {
	env *envtest.Environment
	// config is disco's own identity (local.ComponentUser): the manager and the facade act
	// as it, and the admission webhooks trust it. The people's kubeconfigs are not it.
	config     *rest.Config
	kubeconfig string
	// userKubeconfig is a normal user's (local.DevUser), who gets the disco-editor role in
	// the default tenant's namespace: it can submit runs but not promote claims.
	userKubeconfig string
}

// findAssets returns the directory holding kube-apiserver and etcd: the flag, then
// KUBEBUILDER_ASSETS, then ./bin/k8s, then the build cache of hack/build-control-plane.sh.
func findAssets(flag string) (string, error) {
	candidates := []string{flag, os.Getenv("KUBEBUILDER_ASSETS"), filepath.Join("bin", "k8s")}
	if exe, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(exe), "k8s"))
	}
	cache := os.Getenv("DISCO_CACHE_DIR")
	if cache == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(dir, "disco")
		}
	}
	if cache != "" {
		candidates = append(candidates, filepath.Join(cache, "envtest", kubeVersion+"-etcd"+etcdVersion))
	}
	for _, dir := range candidates {
		if dir == "" {
			continue
		}
		if isExecutable(filepath.Join(dir, "kube-apiserver")) && isExecutable(filepath.Join(dir, "etcd")) {
			return filepath.Abs(dir)
		}
	}
	return "", errors.New("kube-apiserver and etcd were not found (looked in --assets-dir, $KUBEBUILDER_ASSETS, ./bin/k8s and the build cache); run `make envtest` to build them from the Go module proxy")
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// startControlPlane starts etcd (data in dataDir/etcd) and kube-apiserver, installs the
// CRDs and the admission webhooks' registration, and writes the admin's kubeconfig to
// dataDir/kubeconfig and the dev user's to dataDir/kubeconfig-user.
func startControlPlane(dataDir, assets string) (*controlPlane, error) {
	crds, err := crd.All()
	if err != nil {
		return nil, fmt.Errorf("read embedded CRDs: %w", err)
	}
	etcdDir := filepath.Join(dataDir, "etcd")
	if err := os.MkdirAll(etcdDir, 0o700); err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDs:                     crds,
		ErrorIfCRDPathMissing:    false,
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  30 * time.Second,
		ControlPlane:             envtest.ControlPlane{Etcd: &envtest.Etcd{DataDir: etcdDir}},
	}
	// The admission webhooks are registered with the API server here and served by the
	// manager (admission.Register) on the loopback port envtest picks.
	if err := local.Install(env); err != nil {
		return nil, err
	}
	if _, err := env.Start(); err != nil {
		return nil, fmt.Errorf("start the embedded control plane: %w", err)
	}
	cp := &controlPlane{env: env, kubeconfig: filepath.Join(dataDir, "kubeconfig"), userKubeconfig: filepath.Join(dataDir, "kubeconfig-user")}
	if err := cp.addUsers(); err != nil {
		_ = cp.stop() // the addUsers error is the one to report
		return nil, err
	}
	return cp, nil
}

// addUsers makes disco's component identity (cp.config) and writes the kubeconfigs of the
// admin (cp.kubeconfig) and of the dev user (cp.userKubeconfig).
func (cp *controlPlane) addUsers() error {
	component, err := cp.env.AddUser(envtest.User{Name: local.ComponentUser, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("create disco's component user: %w", err)
	}
	cp.config = component.Config()
	for _, u := range []struct {
		user envtest.User
		path string
	}{
		{envtest.User{Name: "disco-admin", Groups: []string{"system:masters"}}, cp.kubeconfig},
		{envtest.User{Name: local.DevUser}, cp.userKubeconfig},
	} {
		added, err := cp.env.AddUser(u.user, nil)
		if err != nil {
			return fmt.Errorf("create the user %s: %w", u.user.Name, err)
		}
		kubeconfig, err := added.KubeConfig()
		if err != nil {
			return err
		}
		if err := os.WriteFile(u.path, kubeconfig, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// grantUserRoles installs disco's user ClusterRoles and gives the dev user the editor role
// in namespace ns (issue 14, item 4).
func grantUserRoles(ctx context.Context, c client.Client, ns string) error {
	roles, err := rbacconfig.UserRoles()
	if err != nil {
		return err
	}
	for _, r := range roles {
		want := r.DeepCopy()
		if _, err := controllerutil.CreateOrUpdate(ctx, c, r, func() error { r.Labels, r.Rules = want.Labels, want.Rules; return nil }); err != nil {
			return fmt.Errorf("install ClusterRole %s: %w", want.Name, err)
		}
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: local.DevUser + "-disco-editor", Namespace: ns}}
	_, err = controllerutil.CreateOrUpdate(ctx, c, rb, func() error {
		rb.Subjects = []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: local.DevUser, APIGroup: rbacv1.GroupName}}
		rb.RoleRef = rbacv1.RoleRef{Kind: "ClusterRole", Name: "disco-editor", APIGroup: rbacv1.GroupName}
		return nil
	})
	return err
}

func (cp *controlPlane) stop() error { return cp.env.Stop() }
