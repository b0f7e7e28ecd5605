package app

import (
	"context"
	"crypto/x509"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// A manager replica that serves webhooks is not Ready until its webhook server answers,
// so the webhook Service never sends admission calls to a replica that refuses them.
func TestManagerNotReadyUntilWebhooksServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	ws := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	req := httptest.NewRequest("GET", "/readyz", nil)

	checks := readyChecks(ws, true)
	if err := checks["webhooks"](req); err == nil {
		t.Fatal("ready before the webhook server started")
	}

	// The server starts once cert-controller's certificate is in the directory.
	ca, caKey, _ := issue(t, "disco-ca", nil, nil, x509.ExtKeyUsageAny)
	_, key, certPEM := issue(t, "disco-webhook-service.disco-system.svc", ca, caKey, x509.ExtKeyUsageServerAuth)
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM(t, key), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = ws.Start(ctx) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := checks["webhooks"](req)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready once the webhook server serves: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Without webhooks, readiness does not wait for them.
	if _, ok := readyChecks(ws, false)["webhooks"]; ok {
		t.Error("a manager without webhooks waits for them")
	}
}

// --engine-blob-volume takes a pod volume's source as JSON; a misspelt or empty one fails
// at startup rather than giving engine pods no blob store.
func TestParseVolumeSource(t *testing.T) {
	v, err := parseVolumeSource(`{"hostPath": {"path": "/srv/disco/blobs", "type": "Directory"}}`)
	if err != nil || v == nil || v.HostPath == nil || v.HostPath.Path != "/srv/disco/blobs" {
		t.Fatalf("hostPath: %+v, %v", v, err)
	}
	if v, err := parseVolumeSource(""); v != nil || err != nil {
		t.Errorf("empty: %+v, %v; want none", v, err)
	}
	for _, bad := range []string{`{}`, `{"hostpath": {"path": "/x"}}`, `{"hostPath": {"path": "/x", "typo": 1}}`, `not json`, `[]`} {
		if v, err := parseVolumeSource(bad); err == nil {
			t.Errorf("%s: accepted as %+v", bad, v)
		}
	}
}

// --engine-cpu and --engine-memory size run Jobs; "" keeps the defaults, and anything but a
// positive quantity is refused at startup.
func TestEngineResources(t *testing.T) {
	cpu, mem, err := engineResources("250m", "512Mi")
	if err != nil || cpu.MilliValue() != 250 || mem.Value() != 512<<20 {
		t.Fatalf("250m, 512Mi: %v %v %v", cpu.String(), mem.String(), err)
	}
	if cpu, mem, err := engineResources("", ""); err != nil || !cpu.IsZero() || !mem.IsZero() {
		t.Errorf("empty: %v %v %v; want the executor's defaults", cpu.String(), mem.String(), err)
	}
	for _, bad := range [][2]string{{"0", ""}, {"-1", ""}, {"", "lots"}, {"1 CPU", ""}} {
		if _, _, err := engineResources(bad[0], bad[1]); err == nil {
			t.Errorf("%q %q accepted", bad[0], bad[1])
		}
	}
}
