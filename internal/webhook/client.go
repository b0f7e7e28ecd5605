package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// DeliveryTimeout bounds one attempt, connection included; a slower endpoint
// counts as failed and is retried on the schedule.
const DeliveryTimeout = 15 * time.Second

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// NewHTTPClient returns the client deliveries use: DeliveryTimeout, no redirects
// (a redirect could point anywhere, including inside the cluster, and the
// contract treats it as a non-2xx answer), no proxy from the environment (a proxy
// would dial on our behalf, out of reach of the address check), and a dialer that
// refuses forbidden addresses.
func NewHTTPClient(allowLoopback, allowPrivate bool) *http.Client {
	return newHTTPClient(allowLoopback, allowPrivate, nil)
}

// newHTTPClient is NewHTTPClient resolving host names with r (nil: the system's).
func newHTTPClient(allowLoopback, allowPrivate bool, r Resolver) *http.Client {
	if r == nil {
		r = net.DefaultResolver
	}
	d := &checkedDialer{
		resolver: r,
		dialer: &net.Dialer{
			Timeout:   DeliveryTimeout,
			KeepAlive: 30 * time.Second,
			Control:   dialControl(allowLoopback, allowPrivate),
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: DeliveryTimeout,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   DeliveryTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// checkedDialer resolves the host itself and dials each address in turn. Every
// dial goes through dialControl, which checks the address the socket is about to
// connect to, after resolution: whatever a name resolves to at delivery, a
// forbidden address is refused before any packet is sent to it.
type checkedDialer struct {
	resolver Resolver
	dialer   *net.Dialer
}

func (d *checkedDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return d.dialer.DialContext(ctx, network, address)
	}
	ipNetwork := "ip"
	switch network {
	case "tcp4":
		ipNetwork = "ip4"
	case "tcp6":
		ipNetwork = "ip6"
	}
	addrs, err := d.resolver.LookupNetIP(ctx, ipNetwork, host)
	if err != nil {
		return nil, fmt.Errorf("webhook: resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("webhook: %s has no address", host)
	}
	var errs []error
	for _, a := range addrs {
		c, err := d.dialer.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("webhook: %s: %w", host, errors.Join(errs...))
}
