package apiserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key}
}

func (ca *testCA) client(t *testing.T, cn string) tls.Certificate {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func TestAggregatedAPI(t *testing.T) {
	ctx := context.Background()
	proxyCA := newCA(t, "front-proxy-ca")
	pool := x509.NewCertPool()
	pool.AddCert(proxyCA.cert)
	opts := env.server.opts
	opts.RequestHeader = &RequestHeaderAuth{ClientCAs: pool, AllowedNames: []string{"front-proxy-client"}}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.front.Limits = env.server.front.Limits
	srv := httptest.NewUnstartedServer(s.Handler())
	srv.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	srv.StartTLS()
	defer srv.Close()

	// A tenant whose members are the Kubernetes group team-c.
	tid := ids.New(ids.Tenant)
	tn := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(tid)}, Spec: discov1.TenantSpec{Tier: discov1.TenantTierTeam, Namespace: nsA(), Groups: []string{"team-c"}}}
	if err := env.direct.Create(ctx, tn); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() error { return env.client.Get(ctx, clientKey(tn.Name), &discov1.Tenant{}) })

	get := func(cert *tls.Certificate, path string, headers ...string) (int, map[string]any) {
		tr := srv.Client().Transport.(*http.Transport).Clone()
		if cert != nil {
			tr.TLSClientConfig.Certificates = []tls.Certificate{*cert}
		}
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Add(headers[i], headers[i+1])
		}
		res, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return res.StatusCode, m
	}

	code, doc := get(nil, "/apis/api.disco.dev/v1")
	if code != 200 || doc["kind"] != "APIResourceList" || doc["groupVersion"] != "api.disco.dev/v1" {
		t.Fatalf("discovery %d %v", code, doc)
	}
	if code, doc := get(nil, "/apis/api.disco.dev"); code != 200 || doc["kind"] != "APIGroup" {
		t.Fatalf("group %d %v", code, doc)
	}

	proxy := proxyCA.client(t, "front-proxy-client")
	code, body := get(&proxy, "/apis/api.disco.dev/v1/projects", "X-Remote-User", "carol", "X-Remote-Group", "system:authenticated", "X-Remote-Group", "team-c")
	if code != 200 || body["object"] != "list" {
		t.Fatalf("proxied list %d %v", code, body)
	}
	// The headers mean nothing without the proxy's certificate...
	if code, _ := get(nil, "/apis/api.disco.dev/v1/projects", "X-Remote-User", "carol", "X-Remote-Group", "team-c"); code != 401 {
		t.Fatalf("headers without certificate: %d", code)
	}
	// ...or with a certificate of another CA, or another name.
	rogue := newCA(t, "rogue").client(t, "front-proxy-client")
	if code, _ := get(&rogue, "/apis/api.disco.dev/v1/projects", "X-Remote-User", "carol", "X-Remote-Group", "team-c"); code != 401 {
		t.Fatalf("rogue CA: %d", code)
	}
	other := proxyCA.client(t, "someone-else")
	if code, _ := get(&other, "/apis/api.disco.dev/v1/projects", "X-Remote-User", "carol", "X-Remote-Group", "team-c"); code != 401 {
		t.Fatalf("wrong name: %d", code)
	}
	// A user in no tenant's group is forbidden.
	if code, body := get(&proxy, "/apis/api.disco.dev/v1/projects", "X-Remote-User", "dave", "X-Remote-Group", "nobody"); code != 403 {
		t.Fatalf("no tenant: %d %v", code, body)
	}
	// Bearer credentials work on the aggregated path too.
	if code, _ := get(nil, "/apis/api.disco.dev/v1/projects", "Authorization", "Bearer "+env.adminA); code != 200 {
		t.Fatalf("bearer on aggregated path: %d", code)
	}
	if code, _ := get(&proxy, "/apis/api.disco.dev/v2/projects", "X-Remote-User", "carol", "X-Remote-Group", "team-c"); code != 404 {
		t.Fatalf("unknown version: %d", code)
	}
}
