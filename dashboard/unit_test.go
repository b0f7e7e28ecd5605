package dashboard

import (
	"bytes"
	"testing"
)

func TestSealedCookiesRefuseTamperingAndSwaps(t *testing.T) {
	s, err := newSealer(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	v, err := s.seal(sessionCookie, session{Access: "disco_session_x", Refresh: "disco_refresh_y"})
	if err != nil {
		t.Fatal(err)
	}
	var got session
	if err := s.open(sessionCookie, v, &got); err != nil || got.Access != "disco_session_x" {
		t.Fatalf("open = %+v, %v", got, err)
	}
	if bytes.Contains([]byte(v), []byte("disco_session")) {
		t.Error("the sealed cookie shows the token")
	}
	if err := s.open(flowCookie, v, &got); err == nil {
		t.Error("a session cookie opened as the flow cookie")
	}
	tampered := []byte(v)
	tampered[len(tampered)/2] ^= 1
	if err := s.open(sessionCookie, string(tampered), &got); err == nil {
		t.Error("a tampered cookie opened")
	}
	other, _ := newSealer(bytes.Repeat([]byte{8}, 32))
	if err := other.open(sessionCookie, v, &got); err == nil {
		t.Error("a cookie opened with another key")
	}
	if _, err := newSealer([]byte("short")); err == nil {
		t.Error("a short key was accepted")
	}
}

func TestSignInReturnsOnlyToLocalPaths(t *testing.T) {
	for in, want := range map[string]string{
		"/projects/proj_x": "/projects/proj_x", "": "/projects", "//evil.example/x": "/projects",
		"https://evil.example/": "/projects", "/\\evil.example": "/projects", "/a\r\nSet-Cookie: x": "/projects",
	} {
		if got := localPath(in); got != want {
			t.Errorf("localPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAddressIDsMustBeIDs(t *testing.T) {
	for _, ok := range []string{"proj_abc123", "clm_ABCxyz09"} {
		if !idPattern.MatchString(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"../api-keys", "proj_a/b", "proj_", "proj_a.b", "proj_a%2F", ""} {
		if idPattern.MatchString(bad) {
			t.Errorf("%q accepted as an id", bad)
		}
	}
}

func TestServesLeavesTheAPIAlone(t *testing.T) {
	for _, p := range []string{"/v1/projects", "/v1", "/healthz", "/readyz", "/apis/discovery.disco.dev/v1alpha1", "/v1/auth/authorize"} {
		if Serves(p) {
			t.Errorf("the dashboard takes %s", p)
		}
	}
	for _, p := range []string{"/", "/signin", "/auth/callback", "/projects", "/projects/proj_x/claims", "/static/app.css", "/settings/keys"} {
		if !Serves(p) {
			t.Errorf("the dashboard does not take %s", p)
		}
	}
}
