package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/discolab/disco/config/crd"
)

// Versions of the control plane `make envtest` builds; used to find its cache.
const (
	kubeVersion = "v1.36.3"
	etcdVersion = "v3.6.5"
)

// controlPlane is an etcd and kube-apiserver started from local binaries, with etcd's data
// kept under the dev data dir so objects survive restarts.
type controlPlane struct {
	env        *envtest.Environment
	config     *rest.Config
	kubeconfig string
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
// CRDs, and writes an admin kubeconfig to dataDir/kubeconfig.
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
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("start the embedded control plane: %w", err)
	}
	cp := &controlPlane{env: env, config: cfg, kubeconfig: filepath.Join(dataDir, "kubeconfig")}
	user, err := env.AddUser(envtest.User{Name: "disco-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		cp.stop()
		return nil, fmt.Errorf("create the admin user: %w", err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		cp.stop()
		return nil, err
	}
	if err := os.WriteFile(cp.kubeconfig, kubeconfig, 0o600); err != nil {
		cp.stop()
		return nil, err
	}
	return cp, nil
}

func (cp *controlPlane) stop() error { return cp.env.Stop() }
