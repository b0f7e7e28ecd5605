package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/internal/store"
)

// issue makes a certificate for cn signed by parent (self-signed when parent is nil).
func issue(t *testing.T, cn string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, usage x509.ExtKeyUsage) (*x509.Certificate, *ecdsa.PrivateKey, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func keyPEM(t *testing.T, k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

// The kube-apiserver publishes its front proxy's CA and header names in
// kube-system/extension-apiserver-authentication; the facade trusts exactly those.
func TestRequestHeaderFromConfigMap(t *testing.T) {
	ca, caKey, caPEM := issue(t, "front-proxy-ca", nil, nil, x509.ExtKeyUsageAny)
	proxy, _, _ := issue(t, "front-proxy-client", ca, caKey, x509.ExtKeyUsageClientAuth)
	cm := &corev1.ConfigMap{Data: map[string]string{
		"requestheader-client-ca-file":   string(caPEM),
		"requestheader-allowed-names":    `["front-proxy-client"]`,
		"requestheader-username-headers": `["X-Remote-User"]`,
		"requestheader-group-headers":    `["X-Remote-Group"]`,
	}}
	rh, err := requestHeaderFromConfigMap(cm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := proxy.Verify(x509.VerifyOptions{Roots: rh.ClientCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the published CA does not verify the proxy: %v", err)
	}
	other, _, _ := issue(t, "other-ca", nil, nil, x509.ExtKeyUsageAny)
	if _, err := other.Verify(x509.VerifyOptions{Roots: rh.ClientCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err == nil {
		t.Errorf("a certificate of another CA verifies")
	}
	if !slices.Equal(rh.AllowedNames, []string{"front-proxy-client"}) || !slices.Equal(rh.UsernameHeaders, []string{"X-Remote-User"}) ||
		!slices.Equal(rh.GroupHeaders, []string{"X-Remote-Group"}) {
		t.Errorf("read %+v", rh)
	}
	for name, data := range map[string]map[string]string{
		"no CA":        {"requestheader-allowed-names": `["x"]`},
		"not PEM":      {"requestheader-client-ca-file": "not a certificate"},
		"bad list":     {"requestheader-client-ca-file": string(caPEM), "requestheader-allowed-names": "front-proxy-client"},
		"bad headers":  {"requestheader-client-ca-file": string(caPEM), "requestheader-group-headers": `{"a": 1}`},
		"empty config": {},
	} {
		if _, err := requestHeaderFromConfigMap(&corev1.ConfigMap{Data: data}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// Behind an APIService the facade serves TLS on --secure-listen and asks for the front
// proxy's client certificate, which reaches the handler; a client without a certificate
// is still served there, and --listen stays plain HTTP.
func TestFacadeServersAskForTheProxyCertificate(t *testing.T) {
	dir := t.TempDir()
	ca, caKey, caPEM := issue(t, "ca", nil, nil, x509.ExtKeyUsageAny)
	_, srvKey, srvPEM := issue(t, "disco-apiserver", ca, caKey, x509.ExtKeyUsageServerAuth)
	_, proxyKey, proxyPEM := issue(t, "front-proxy-client", ca, caKey, x509.ExtKeyUsageClientAuth)
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, srvPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM(t, srvKey), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv, err := apiserver.New(apiserver.Options{Client: fake.NewClientBuilder().Build(), Store: st, Logger: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	peers := make(chan int, 4)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := -1 // plain HTTP
		if r.TLS != nil {
			n = len(r.TLS.PeerCertificates)
		}
		peers <- n
	})

	if _, err := facadeServers(srv, h, apiserverOptions{listen: ":0", agg: aggregationOptions{secureListen: ":0"}}); err == nil {
		t.Errorf("--secure-listen without a certificate accepted")
	}
	if _, err := facadeServers(srv, h, apiserverOptions{listen: ":0", tlsCert: certFile}); err == nil {
		t.Errorf("--tls-cert-file without its key accepted")
	}
	servers, err := facadeServers(srv, h, apiserverOptions{listen: "127.0.0.1:0", tlsCert: certFile, tlsKey: keyFile,
		agg: aggregationOptions{secureListen: "127.0.0.1:0"}})
	if err != nil || len(servers) != 2 || servers[0].certFile != "" || servers[1].certFile == "" {
		t.Fatalf("servers %+v, %v: want plain HTTP and TLS", servers, err)
	}
	addr := make([]string, 2)
	for i, s := range servers {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr[i] = ln.Addr().String()
		if s.certFile != "" {
			go func() { _ = s.ServeTLS(ln, s.certFile, s.keyFile) }()
		} else {
			go func() { _ = s.Serve(ln) }()
		}
		defer s.Close()
	}

	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	get := func(url string, certs []tls.Certificate) int {
		t.Helper()
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}}}
		res, err := c.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return <-peers
	}
	pair, err := tls.X509KeyPair(proxyPEM, keyPEM(t, proxyKey))
	if err != nil {
		t.Fatal(err)
	}
	if n := get("https://"+addr[1]+"/v1/", []tls.Certificate{pair}); n != 1 {
		t.Errorf("TLS with the proxy's certificate: the handler saw %d peer certificates, want 1", n)
	}
	if n := get("https://"+addr[1]+"/v1/", nil); n != 0 {
		t.Errorf("TLS without a certificate: handler saw %d", n)
	}
	if n := get("http://"+addr[0]+"/v1/", nil); n != -1 {
		t.Errorf("--listen: handler saw TLS")
	}
}

// With TLS and no CA file, the facade reads the front proxy's settings from the cluster's
// ConfigMap; --requestheader-allowed-names overrides its names; without the ConfigMap, or
// without TLS, there is no front proxy to trust.
func TestRequestHeaderFromTheCluster(t *testing.T) {
	ctx := context.Background()
	_, _, caPEM := issue(t, "front-proxy-ca", nil, nil, x509.ExtKeyUsageAny)
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: authConfigMapNamespace, Name: authConfigMapName},
		Data: map[string]string{
			"requestheader-client-ca-file": string(caPEM),
			"requestheader-allowed-names":  `["front-proxy-client"]`,
		},
	}
	withCM := fake.NewClientBuilder().WithObjects(cm).Build()

	rh, err := (&aggregationOptions{}).requestHeader(ctx, withCM, true)
	if err != nil || rh == nil || !slices.Equal(rh.AllowedNames, []string{"front-proxy-client"}) {
		t.Fatalf("from the ConfigMap: %+v, %v", rh, err)
	}
	rh, err = (&aggregationOptions{requestAllowed: []string{"aggregator"}}).requestHeader(ctx, withCM, true)
	if err != nil || rh == nil || !slices.Equal(rh.AllowedNames, []string{"aggregator"}) {
		t.Fatalf("with --requestheader-allowed-names: %+v, %v", rh, err)
	}
	if rh, err := (&aggregationOptions{}).requestHeader(ctx, withCM, false); rh != nil || err != nil {
		t.Errorf("without TLS: %+v, %v; want none", rh, err)
	}
	if rh, err := (&aggregationOptions{}).requestHeader(ctx, fake.NewClientBuilder().Build(), true); rh != nil || err != nil {
		t.Errorf("without the ConfigMap: %+v, %v; want none (Bearer credentials only)", rh, err)
	}
}
