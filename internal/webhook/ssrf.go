package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"syscall"
	"time"
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

// CheckURL refuses an endpoint URL at registration: anything but http(s), URLs
// with credentials (they would leak into logs and the deliveries list), and hosts
// that resolve to an address CheckAddr refuses. It is not enough on its own, since
// DNS may answer differently later; the dispatcher's dialer checks again.
func CheckURL(rawURL string, allowLoopback, allowPrivate bool) error {
	u, err := checkURLSyntax(rawURL)
	if err != nil {
		return err
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return CheckAddr(ip, allowLoopback, allowPrivate)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("webhook: resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("webhook: %s has no address", host)
	}
	// Refuse if any address is forbidden: the client may connect to any of them.
	for _, a := range addrs {
		if err := CheckAddr(a, allowLoopback, allowPrivate); err != nil {
			return fmt.Errorf("%s: %w", host, err)
		}
	}
	return nil
}

// checkURLSyntax is the part of CheckURL that needs no DNS; the dispatcher repeats
// it before every send because registrations may predate a policy change.
func checkURLSyntax(rawURL string) (*url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("webhook: bad url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("webhook: url scheme must be http or https, not %q", u.Scheme)
	}
	if u.User != nil {
		return nil, errors.New("webhook: url must not carry credentials")
	}
	if u.Hostname() == "" {
		return nil, errors.New("webhook: url has no host")
	}
	return u, nil
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
