package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url                         string
		allowLoopback, allowPrivate bool
		ok                          bool
	}{
		{"https://93.184.216.34/hook", false, false, true},
		{"https://93.184.216.34:8443/hook?x=1", false, false, true},
		{"https://[2606:4700:4700::1111]/hook", false, false, true},
		// Plain http only where loopback or private receivers are allowed.
		{"http://93.184.216.34:8080/hook", false, false, false},
		{"http://93.184.216.34:8080/hook", true, false, true},
		{"http://93.184.216.34:8080/hook", false, true, true},
		{"ftp://93.184.216.34/", true, true, false},
		{"file:///etc/passwd", true, true, false},
		{"https:93.184.216.34/hook", true, true, false},
		{"https://user:pw@93.184.216.34/", true, true, false},
		{"https://user@93.184.216.34/", true, true, false},
		{"https:///nohost", true, true, false},
		{"https://93.184.216.34:0/", true, true, false},
		{"https://93.184.216.34:65536/", true, true, false},
		{"https://93.184.216.34:/", true, true, false},
		{"https://[fe80::1%25eth0]/", true, true, false},
		{"https://" + strings.Repeat("a", 63) + ".example/" + strings.Repeat("p", 2048), false, false, false},
		// Host names are judged by their form; nothing is resolved at registration
		// (.invalid never resolves, RFC 2606).
		{"https://hooks.invalid/x", false, false, true},
		{"https://xn--bcher-kva.invalid:8443/x", false, false, true},
		{"https://hooks.invalid./x", false, false, true},
		{"https://bad_name.invalid/x", false, false, false},
		{"https://-bad.invalid/x", false, false, false},
		{"https://a..b/x", false, false, false},
		{"https://" + strings.Repeat("a", 64) + ".invalid/x", false, false, false},
		{"https://2130706433/", false, false, false},
		{"https://0x7f.1/", false, false, false},
		{"https://1.2.3/", false, false, false},
		{"https://10.1.2.3/", false, false, false},
		{"https://10.1.2.3/", false, true, true},
		{"https://172.16.5.4/", false, false, false},
		{"https://172.31.255.255/", false, false, false},
		{"https://172.32.0.1/", false, false, true},
		{"https://192.168.1.1/", false, false, false},
		{"https://100.64.0.1/", false, false, false},
		{"https://[fc00::1]/", false, false, false},
		{"https://[fd12:3456::1]/", false, true, true},
		{"http://127.0.0.1:8080/", false, false, false},
		{"https://127.0.0.1:8080/", false, false, false},
		{"https://127.0.0.1:8080/", false, true, false},
		{"http://127.0.0.1:8080/", true, false, true},
		{"https://127.1.2.3/", false, false, false},
		{"https://[::1]/", false, false, false},
		{"https://[::1]/", true, false, true},
		{"https://[::ffff:127.0.0.1]/", false, false, false},
		{"https://[::ffff:10.0.0.1]/", false, false, false},
		{"https://[64:ff9b::a00:1]/", false, false, false}, // NAT64 of 10.0.0.1
		{"https://169.254.169.254/latest/meta-data/", false, false, false},
		{"http://169.254.169.254/latest/meta-data/", true, true, false},
		{"https://[fd00:ec2::254]/", true, true, false},
		{"https://169.254.1.1/", false, false, false},
		{"https://[fe80::1]/", false, false, false},
		{"https://0.0.0.0/", true, true, false},
		{"https://[::]/", true, true, false},
		{"https://224.0.0.1/", true, true, false},
		{"https://[ff02::1]/", true, true, false},
		{"https://255.255.255.255/", true, true, false},
		{"https://localhost:1234/", false, false, false},
		{"https://api.localhost/", false, false, false},
		{"http://localhost:1234/", true, false, true},
	}
	for _, tt := range tests {
		err := CheckURL(tt.url, tt.allowLoopback, tt.allowPrivate)
		if (err == nil) != tt.ok {
			t.Errorf("CheckURL(%q, loopback=%v, private=%v) = %v, want ok=%v", tt.url, tt.allowLoopback, tt.allowPrivate, err, tt.ok)
		}
	}
}

// TestDialRefusesLoopbackHostname: a hostname is checked on the address actually
// dialed, not on the name, so one that resolves to loopback is refused at
// connection time even if registration was somehow let through.
func TestDialRefusesLoopbackHostname(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	defer srv.Close()
	url := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	_, err := NewHTTPClient(false, false).Get(url)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("dial to %s: err = %v, want ErrForbiddenAddress", url, err)
	}
	resp, err := NewHTTPClient(true, false).Get(url)
	if err != nil {
		t.Fatalf("dial with loopback allowed: %v", err)
	}
	resp.Body.Close()
	if hits != 1 {
		t.Fatalf("receiver hit %d times, want 1", hits)
	}
}

func TestClientDoesNotFollowRedirects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
	}))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL, nil)
	resp, err := NewHTTPClient(true, false).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status = %d, want the 302 itself", resp.StatusCode)
	}
}
