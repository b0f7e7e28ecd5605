package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// ErrForbiddenAddress is wrapped by every refusal of an endpoint address.
var ErrForbiddenAddress = errors.New("webhook: forbidden endpoint address")

var (
	// Cloud metadata services hand out credentials; no setting allows them.
	metadataAddrs = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"),
		netip.MustParseAddr("fd00:ec2::254"),
	}
	// Addresses nobody can legitimately serve webhooks from.
	reservedPrefixes = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
		netip.MustParsePrefix("240.0.0.0/4"),        // reserved, includes broadcast
		netip.MustParsePrefix("64:ff9b:1::/48"),     // local-use NAT64
		netip.MustParsePrefix("100::/64"),           // discard-only
		netip.MustParsePrefix("2001:db8::/32"),      // documentation
		netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
		netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
		netip.MustParsePrefix("255.255.255.255/32"), // limited broadcast
	}
	// Internal networks, reachable only with AllowPrivate. 100.64/10 is carrier-grade
	// NAT space, internal to the provider's network like RFC 1918.
	privatePrefixes = []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("fc00::/7"),
	}
	nat64 = netip.MustParsePrefix("64:ff9b::/96")
)

// CheckAddr refuses an IP address a webhook must not reach. Loopback is allowed
// only with allowLoopback; private and link-local only with allowPrivate;
// metadata, unspecified, multicast and reserved addresses never.
func CheckAddr(ip netip.Addr, allowLoopback, allowPrivate bool) error {
	ip = ip.Unmap().WithZone("")
	// NAT64 addresses reach the embedded IPv4 address: judge that one.
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte(b[12:16]))
	}
	refuse := func(kind string) error {
		return fmt.Errorf("%w: %s is %s", ErrForbiddenAddress, ip, kind)
	}
	for _, m := range metadataAddrs {
		if ip == m {
			return refuse("a cloud metadata address")
		}
	}
	switch {
	case !ip.IsValid():
		return refuse("invalid")
	case ip.IsUnspecified():
		return refuse("unspecified")
	case ip.IsMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsLinkLocalMulticast():
		return refuse("multicast")
	case ip.IsLoopback():
		if !allowLoopback {
			return refuse("loopback")
		}
		return nil
	case ip.IsLinkLocalUnicast():
		if !allowPrivate {
			return refuse("link-local")
		}
		return nil
	}
	for _, p := range reservedPrefixes {
		if p.Contains(ip) {
			return refuse("reserved")
		}
	}
	for _, p := range privatePrefixes {
		if p.Contains(ip) {
			if !allowPrivate {
				return refuse("private")
			}
			return nil
		}
	}
	return nil
}

// MaxURLLength bounds an endpoint URL (the registration schema's maxLength).
const MaxURLLength = 2048

// CheckURL refuses an endpoint URL at registration by its form alone: anything but
// https (plain http only where loopback or private receivers are allowed, that is in
// development or on the deployment's own network), credentials in the URL (they would
// leak into logs and the deliveries list), a missing or malformed host, a port outside
// 1-65535, more than MaxURLLength bytes, and a literal address CheckAddr refuses
// ("localhost" counts as loopback, RFC 6761 section 6.3). It does not resolve host
// names: registration must not depend on DNS, and an answer given now proves nothing
// about the address dialed later (DNS rebinding). The dispatcher's dialer checks every
// address it connects to (issue 17).
func CheckURL(rawURL string, allowLoopback, allowPrivate bool) error {
	u, err := checkURLSyntax(rawURL, allowLoopback || allowPrivate)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return CheckAddr(ip, allowLoopback, allowPrivate)
	}
	if name := strings.TrimSuffix(strings.ToLower(host), "."); name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if !allowLoopback {
			return fmt.Errorf("%w: %s is loopback", ErrForbiddenAddress, host)
		}
	}
	return nil
}

// checkURLSyntax is the part of CheckURL that needs no policy on addresses; the
// dispatcher repeats it before every send because registrations may predate a policy
// change.
func checkURLSyntax(rawURL string, allowHTTP bool) (*url.URL, error) {
	if len(rawURL) > MaxURLLength {
		return nil, fmt.Errorf("webhook: url is longer than %d bytes", MaxURLLength)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("webhook: bad url: %w", err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	case u.Scheme == "http":
		return nil, errors.New("webhook: url must use https; plain http is accepted only where loopback or private receivers are allowed")
	default:
		return nil, fmt.Errorf("webhook: url scheme must be https, not %q", u.Scheme)
	}
	if u.User != nil {
		return nil, errors.New("webhook: url must not carry credentials")
	}
	if u.Opaque != "" {
		return nil, errors.New("webhook: url must be absolute, as in https://host/path")
	}
	host := u.Hostname()
	if host == "" {
		return nil, errors.New("webhook: url has no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("webhook: url port %q is not between 1 and 65535", p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, errors.New("webhook: url has an empty port")
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if ip.Zone() != "" {
			return nil, fmt.Errorf("webhook: url host %s carries an IPv6 zone", host)
		}
		return u, nil
	}
	if err := checkHostName(host); err != nil {
		return nil, err
	}
	return u, nil
}

// checkHostName accepts a DNS host name (RFC 1123 section 2.1: labels of letters,
// digits and hyphens, 1-63 bytes, not starting or ending with a hyphen, 253 bytes in
// all, a trailing dot allowed). Internationalised names are given in their ASCII
// (punycode) form. A name whose last label is all digits is refused: it is no DNS
// name, and resolvers may read it as a numeric IPv4 address (2130706433, 0x7f.1).
func checkHostName(host string) error {
	bad := func(why string) error {
		return fmt.Errorf("webhook: url host %q is not a valid host name: %s", host, why)
	}
	name := strings.TrimSuffix(host, ".")
	if name == "" || len(name) > 253 {
		return bad("it must have 1 to 253 characters")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return bad("each dot-separated label must have 1 to 63 characters")
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return bad("a label must not start or end with a hyphen")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			allowed := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
			if !allowed {
				return bad("only letters, digits, hyphens and dots are allowed (give an internationalised name in its xn-- form)")
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(strings.ToLower(last), "0x") {
		return bad("it looks like a numeric address; write an IP address in dotted or bracketed form")
	}
	return nil
}

// dialControl re-checks the address a connection is about to use. It runs after
// name resolution, on the very IP dialed, which defeats DNS rebinding between
// registration and delivery (and between two attempts).
func dialControl(allowLoopback, allowPrivate bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
		}
		ip, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("%w: %s is not an IP address", ErrForbiddenAddress, host)
		}
		return CheckAddr(ip, allowLoopback, allowPrivate)
	}
}
