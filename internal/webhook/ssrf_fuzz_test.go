package webhook

import (
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// FuzzCheckURL: a URL accepted for registration in production (no loopback, no private
// receivers) is https, carries no credentials, and is not a literal loopback, private,
// link-local or unspecified address (issue 17, item 11). `go test` runs the seeds.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://example.com/hook", "http://example.com/", "https://127.0.0.1/", "https://[::1]/",
		"https://user:pw@example.com/", "https://169.254.169.254/latest", "https://10.0.0.1:8443/x", "https://localhost/",
		"https://0x7f.1/", "https://[::ffff:127.0.0.1]/", "https://example.com:0/", "ftp://example.com/", "https:///nohost", "https://%zz/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if CheckURL(raw, false, false) != nil {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("accepted an unparsable URL %q", raw)
		}
		if u.Scheme != "https" || u.User != nil || u.Hostname() == "" {
			t.Fatalf("accepted %q (scheme %q, user %v)", raw, u.Scheme, u.User)
		}
		if ip, err := netip.ParseAddr(u.Hostname()); err == nil {
			ip = ip.Unmap()
			if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsLinkLocalMulticast() {
				t.Fatalf("accepted the literal address %s in %q", ip, raw)
			}
		}
		if h := strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") {
			t.Fatalf("accepted loopback name in %q", raw)
		}
	})
}
