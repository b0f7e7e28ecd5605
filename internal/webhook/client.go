package webhook

import (
	"net"
	"net/http"
	"time"
)

// DeliveryTimeout bounds one attempt, connection included; a slower endpoint
// counts as failed and is retried on the schedule.
const DeliveryTimeout = 15 * time.Second

// NewHTTPClient returns the client deliveries use: DeliveryTimeout, no redirects
// (a redirect could point anywhere, including inside the cluster, and the
// contract treats it as a non-2xx answer), no proxy from the environment (a proxy
// would dial on our behalf, out of reach of the address check), and a dialer that
// refuses forbidden addresses.
func NewHTTPClient(allowLoopback, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{
		Timeout:   DeliveryTimeout,
		KeepAlive: 30 * time.Second,
		Control:   dialControl(allowLoopback, allowPrivate),
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
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
