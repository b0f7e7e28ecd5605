package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// scriptedResolver answers host lookups from a list, one answer per call (the last
// one repeats), and counts the calls.
type scriptedResolver struct {
	mu      sync.Mutex
	answers [][]netip.Addr
	calls   int
}

func (r *scriptedResolver) LookupNetIP(_ context.Context, _, _ string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.answers[min(r.calls, len(r.answers)-1)]
	r.calls++
	return a, nil
}

func (r *scriptedResolver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// TestDeliveryRefusesRebinding (issue 17): registration judges the URL by its form and
// resolves nothing; at delivery the name resolves to loopback (a rebinding DNS server
// that answered a public address when the URL was first shown to it). The delivery is
// refused before any connection is made and recorded as failed with the reason.
func TestDeliveryRefusesRebinding(t *testing.T) {
	var conns, requests atomic.Int32
	rcv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { requests.Add(1) }))
	rcv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	rcv.Start()
	defer rcv.Close()
	port := rcv.URL[strings.LastIndex(rcv.URL, ":")+1:]
	url := "https://hooks.rebind.invalid:" + port + "/hook"
	resolver := &scriptedResolver{answers: [][]netip.Addr{{netip.MustParseAddr("127.0.0.1")}}}

	if err := CheckURL(url, false, false); err != nil {
		t.Fatalf("registration refused %s: %v", url, err)
	}
	if n := resolver.count(); n != 0 {
		t.Fatalf("registration resolved the host %d times", n)
	}

	st := storetest.OpenSQLite(t)
	clock := newFakeClock()
	p, wh := setup(t, st, clock, url)
	d := NewDispatcher(st, DispatcherOptions{Now: clock.Now, Resolver: resolver})
	publish(t, p)
	deliverOnce(t, d, 1)

	if resolver.count() == 0 {
		t.Fatal("the dispatcher did not resolve the host through its resolver")
	}
	dl := onlyDelivery(t, st, wh.ID)
	if dl.Status != store.DeliveryFailed || !strings.Contains(dl.LastError, "forbidden endpoint address: 127.0.0.1 is loopback") {
		t.Fatalf("delivery %s: %q, want failed with the loopback refusal", dl.Status, dl.LastError)
	}
	if n := conns.Load(); n != 0 {
		t.Fatalf("the receiver accepted %d connections, want none", n)
	}
	if n := requests.Load(); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
}
