package aggtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/store"
)

// writeCA makes the front-proxy CA and the proxy's client certificate.
func writeCA(dir string) (*x509.CertPool, error) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "front-proxy-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "front-proxy-client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	files := map[string][]byte{
		"ca.crt":    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		"proxy.crt": pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		"proxy.key": pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			return nil, err
		}
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return pool, nil
}

// hostIP is a non-loopback address of this machine: an EndpointSlice may not point at loopback.
func hostIP() (string, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String(), nil
		}
	}
	return "", fmt.Errorf("no non-loopback IPv4 address")
}

func TestFrontProxy(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		if abs, err := filepath.Abs("../../bin/k8s"); err == nil {
			os.Setenv("KUBEBUILDER_ASSETS", abs)
		}
	}
	ip, err := hostIP()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	pool, err := writeCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	te := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join("..", "..", "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	args := te.ControlPlane.GetAPIServer().Configure()
	args.Set("requestheader-client-ca-file", filepath.Join(dir, "ca.crt"))
	args.Set("requestheader-allowed-names", "front-proxy-client")
	args.Set("requestheader-username-headers", "X-Remote-User")
	args.Set("requestheader-group-headers", "X-Remote-Group")
	args.Set("requestheader-extra-headers-prefix", "X-Remote-Extra-")
	args.Set("proxy-client-cert-file", filepath.Join(dir, "proxy.crt"))
	args.Set("proxy-client-key-file", filepath.Join(dir, "proxy.key"))
	args.Set("enable-aggregator-routing", "true")
	cfg, err := te.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := te.Stop(); err != nil {
			t.Error(err)
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = discov1.AddToScheme(scheme)
	c, err := cache.New(cfg, cache.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	if err := index.Register(ctx, c); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.Start(ctx) }()
	c.WaitForCacheSync(ctx)
	cl, _ := client.New(cfg, client.Options{Scheme: scheme, Cache: &client.CacheOptions{Reader: c}})
	direct, _ := client.New(cfg, client.Options{Scheme: scheme})
	st, err := store.Open(ctx, filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}

	// The tenant whose members are the kube-apiserver's admin group.
	tid := ids.New(ids.Tenant)
	ns := "disco-" + ids.ToName(tid)
	must(t, direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))
	must(t, direct.Create(ctx, &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(tid)},
		Spec: discov1.TenantSpec{Namespace: ns, Tier: discov1.TenantTierTeam, Groups: []string{"system:masters"}}}))
	pid := ids.New(ids.Project)
	must(t, direct.Create(ctx, &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(pid), Namespace: ns},
		Spec: discov1.ProjectSpec{DisplayName: "through the front proxy", TenantID: tid}}))

	// The facade, serving TLS on a routable address, trusting the front-proxy CA.
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skip(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Listener.Close()
	srv.Listener = ln
	facade, err := apiserver.New(apiserver.Options{
		Client: cl, APIReader: direct, Store: st, BaseURL: "https://" + ln.Addr().String() + "/v1",
		RequestHeader: &apiserver.RequestHeaderAuth{ClientCAs: pool, AllowedNames: []string{"front-proxy-client"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = facade.Handler()
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	defer srv.Close()
	port, _ := strconv.Atoi(fmt.Sprint(ln.Addr().(*net.TCPAddr).Port))

	// Service, EndpointSlice and APIService: what config/ deploys in a cluster. The
	// aggregator finds the facade's address through EndpointSlices (Kubernetes 1.33 on;
	// Endpoints are deprecated there).
	must(t, direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "disco-system"}}))
	must(t, direct.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "disco-api", Namespace: "disco-system"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(int32(port))}}}}))
	must(t, direct.Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: "disco-api-1", Namespace: "disco-system", Labels: map[string]string{discoveryv1.LabelServiceName: "disco-api"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(port))}},
	}))
	svc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.api.disco.dev"},
		"spec": map[string]any{
			"group": "api.disco.dev", "version": "v1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
			"service": map[string]any{"namespace": "disco-system", "name": "disco-api", "port": int64(443)},
		},
	}}
	must(t, direct.Create(ctx, svc))

	kc := kubernetes.NewForConfigOrDie(cfg)
	var body []byte
	deadline := time.Now().Add(90 * time.Second)
	for {
		body, err = kc.RESTClient().Get().AbsPath("/apis/api.disco.dev/v1/projects").DoRaw(ctx)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("GET through the kube-apiserver: %v: %s", err, body)
	}
	var list struct {
		Object string           `json:"object"`
		Data   []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil || list.Object != "list" || len(list.Data) != 1 || list.Data[0]["id"] != pid {
		t.Fatalf("list through the front proxy: %v %s", err, body)
	}
	// Discovery through the aggregator.
	res, err := kc.Discovery().ServerResourcesForGroupVersion("api.disco.dev/v1")
	if err != nil || len(res.APIResources) == 0 {
		t.Fatalf("discovery: %v %v", err, res)
	}
	// Writes carry the Kubernetes user as the actor.
	out, err := kc.RESTClient().Post().AbsPath("/apis/api.disco.dev/v1/projects").SetHeader("Content-Type", "application/json").
		Body([]byte(`{"name": "made by kubectl"}`)).DoRaw(ctx)
	if err != nil {
		t.Fatalf("create through the front proxy: %v %s", err, out)
	}
	var made map[string]any
	_ = json.Unmarshal(out, &made)
	if made["created_by"] == nil || made["tenant_id"] != tid {
		t.Fatalf("created %s", out)
	}
	t.Logf("created by %v", made["created_by"])
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
