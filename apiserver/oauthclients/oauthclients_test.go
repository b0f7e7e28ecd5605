package oauthclients

import "testing"

// Redirect URIs are checked without HTTP (RFC 6749 section 3.1.2; RFC 8252 section 7.3
// for loopback redirects of native apps).
func TestCheckRedirectURI(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://app.example/cb":       true,
		"http://127.0.0.1:8765/cb":     true,
		"http://localhost/cb":          true,
		"http://[::1]:9000/cb":         true,
		"http://app.example/cb":        false,
		"https://app.example/cb#frag":  false,
		"/relative/cb":                 false,
		"javascript:alert(1)":          false,
		"http://127.0.0.1.evil.com/cb": false,
	} {
		if err := checkRedirectURI(raw); (err == nil) != ok {
			t.Errorf("%s: %v, want ok %v", raw, err, ok)
		}
	}
}
