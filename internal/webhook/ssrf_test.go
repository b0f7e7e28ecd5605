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
		{"http://93.184.216.34:8080/hook?x=1", false, false, true},
		{"https://[2606:4700:4700::1111]/hook", false, false, true},
		{"ftp://93.184.216.34/", true, true, false},
		{"file:///etc/passwd", true, true, false},
		{"http://user:pw@93.184.216.34/", true, true, false},
		{"http:///nohost", true, true, false},
		{"http://10.1.2.3/", false, false, false},
		{"http://10.1.2.3/", false, true, true},
		{"http://172.16.5.4/", false, false, false},
		{"http://172.31.255.255/", false, false, false},
		{"http://172.32.0.1/", false, false, true},
		{"http://192.168.1.1/", false, false, false},
		{"http://100.64.0.1/", false, false, false},
		{"http://[fc00::1]/", false, false, false},
		{"http://[fd12:3456::1]/", false, true, true},
		{"http://127.0.0.1:8080/", false, false, false},
		{"http://127.0.0.1:8080/", false, true, false},
		{"http://127.0.0.1:8080/", true, false, true},
		{"http://127.1.2.3/", false, false, false},
		{"http://[::1]/", false, false, false},
		{"http://[::1]/", true, false, true},
		{"http://[::ffff:127.0.0.1]/", false, false, false},
		{"http://[::ffff:10.0.0.1]/", false, false, false},
		{"http://[64:ff9b::a00:1]/", false, false, false}, // NAT64 of 10.0.0.1
		{"http://169.254.169.254/latest/meta-data/", false, false, false},
		{"http://169.254.169.254/latest/meta-data/", true, true, false},
		{"http://[fd00:ec2::254]/", true, true, false},
		{"http://169.254.1.1/", false, false, false},
		{"http://[fe80::1]/", false, false, false},
		{"http://0.0.0.0/", true, true, false},
		{"http://[::]/", true, true, false},
		{"http://224.0.0.1/", true, true, false},
		{"http://[ff02::1]/", true, true, false},
		{"http://255.255.255.255/", true, true, false},
		{"http://localhost:1234/", false, false, false},
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
