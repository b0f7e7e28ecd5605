package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/discolab/disco/internal/store"
)

// UserAgent identifies disco's deliveries to receivers.
const UserAgent = "disco-webhooks/1"

// Outcomes reported to DispatcherOptions.Metrics, one per attempt.
const (
	OutcomeSucceeded = "succeeded" // 2xx
	OutcomeRetry     = "retry"     // failed, another attempt is scheduled
	OutcomeDead      = "dead"      // failed, no attempt left
	OutcomeGone      = "gone"      // 410: registration disabled
)

// DispatcherOptions configure a Dispatcher. Zero values take the defaults noted.
type DispatcherOptions struct {
	// HTTPClient sends deliveries; default NewHTTPClient(AllowLoopback, AllowPrivate).
	// A replacement should keep its timeout, redirect and address policies.
	HTTPClient *http.Client
	// Now is the dispatcher's clock (default time.Now). Tests pass a fake one and
	// set the same on the store, which stamps recorded attempts.
	Now func() time.Time
	// Sleep waits between polls (default: a timer honouring ctx).
	Sleep func(ctx context.Context, d time.Duration) error
	// PollInterval is the wait after a poll that found less than a full batch
	// (default 1 s).
	PollInterval time.Duration
	// BatchSize is how many due deliveries one poll claims (default 32).
	BatchSize int
	// Concurrency is how many of a batch are sent at once (default 8), so one slow
	// endpoint does not hold up the others for the whole timeout.
	Concurrency int
	// Lease is how long a claimed delivery stays invisible to other dispatchers
	// (default 2 minutes, well above DeliveryTimeout).
	Lease time.Duration
	// Rand draws retry jitter (default a randomly seeded source).
	Rand *rand.Rand
	// AllowLoopback and AllowPrivate relax the address check of the default client
	// (either also admits plain http URLs, see CheckURL).
	AllowLoopback bool
	AllowPrivate  bool
	// Resolver resolves endpoint host names for the default client (default the
	// system's). Each resolved address is checked as it is dialed.
	Resolver Resolver
	// Logger receives one line per failed attempt (default discard).
	Logger logr.Logger
	// Metrics, when set, is called once per attempt with an Outcome* value.
	Metrics func(outcome string)
}

// Dispatcher sends queued deliveries. Run it in exactly one process at a time per
// database: it is a leader-elected manager.Runnable. (Leases make a second one
// harmless, only wasteful.)
type Dispatcher struct {
	st   *store.Store
	opts DispatcherOptions

	randMu sync.Mutex
}

// NewDispatcher returns a Dispatcher over st.
func NewDispatcher(st *store.Store, opts DispatcherOptions) *Dispatcher {
	if opts.HTTPClient == nil {
		opts.HTTPClient = newHTTPClient(opts.AllowLoopback, opts.AllowPrivate, opts.Resolver)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 32
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.Lease <= 0 {
		opts.Lease = 2 * time.Minute
	}
	if opts.Rand == nil {
		opts.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if opts.Logger.GetSink() == nil {
		opts.Logger = logr.Discard()
	}
	return &Dispatcher{st: st, opts: opts}
}

// Start runs the dispatcher until ctx ends; it makes Dispatcher a manager.Runnable.
func (d *Dispatcher) Start(ctx context.Context) error { return d.Run(ctx) }

// NeedLeaderElection makes the manager run the dispatcher on the leader only, so
// replicas do not compete for the same deliveries.
func (d *Dispatcher) NeedLeaderElection() bool { return true }

// Run polls for due deliveries and sends them until ctx ends, then returns nil.
// Database errors are logged and retried at the next poll rather than ending the
// loop: the outbox keeps everything, so waiting is always safe.
func (d *Dispatcher) Run(ctx context.Context) error {
	for {
		n, err := d.DeliverOnce(ctx)
		if stopping(ctx) {
			return nil
		}
		if err != nil {
			d.opts.Logger.Error(err, "webhook dispatch poll failed")
		}
		// A full batch suggests a backlog: poll again at once.
		if err == nil && n >= d.opts.BatchSize {
			continue
		}
		if !d.pause(ctx) {
			return nil
		}
	}
}

// stopping reports whether ctx has ended: the dispatcher's normal way to stop, not
// a failure to report.
func stopping(ctx context.Context) bool { return ctx.Err() != nil }

// pause waits one poll interval and reports whether to go on. Sleep fails only when
// ctx ends, which is a normal stop.
func (d *Dispatcher) pause(ctx context.Context) bool {
	return d.opts.Sleep(ctx, d.opts.PollInterval) == nil
}

// DeliverOnce claims the deliveries due now, sends them, records every attempt,
// and returns how many it sent.
func (d *Dispatcher) DeliverOnce(ctx context.Context) (int, error) {
	due, err := d.st.ClaimDueDeliveries(ctx, d.opts.Now(), d.opts.BatchSize, d.opts.Lease)
	if err != nil {
		return 0, fmt.Errorf("webhook: claim deliveries: %w", err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
		sem  = make(chan struct{}, d.opts.Concurrency)
	)
	for _, dd := range due {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := d.deliver(ctx, dd); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return len(due), errors.Join(errs...)
}

// deliver makes one attempt and records it.
func (d *Dispatcher) deliver(ctx context.Context, dd store.DueDelivery) error {
	code, sent, sendErr := d.send(ctx, dd)
	if stopping(ctx) {
		// Shutting down: the attempt is not the endpoint's fault. Leave the lease to
		// expire so the next leader sends it again, unpenalised.
		return nil
	}
	at := d.opts.Now()
	a := store.DeliveryAttempt{DeliveryID: dd.ID, StatusCode: code, Sent: sent}
	outcome := OutcomeSucceeded
	switch {
	case sendErr == nil && code >= 200 && code < 300:
		a.Succeeded = true
	case code == http.StatusGone:
		a.DisableWebhook = true
		a.Error = "endpoint answered 410 Gone; registration disabled"
		outcome = OutcomeGone
	default:
		if sendErr != nil {
			a.Error = sendErr.Error()
		} else {
			a.Error = fmt.Sprintf("endpoint answered %d", code)
		}
		if next, ok := NextAttempt(dd.CreatedAt, at, dd.Attempt+1, d.jitter()); ok {
			a.NextAttemptAt = &next
			outcome = OutcomeRetry
		} else {
			outcome = OutcomeDead
		}
	}
	if !a.Succeeded {
		d.opts.Logger.Info("webhook delivery failed", "delivery", dd.ID, "webhook", dd.WebhookID,
			"event", dd.EventID, "attempt", dd.Attempt+1, "status", code, "error", a.Error, "outcome", outcome)
	}
	if err := d.st.RecordDeliveryAttempt(ctx, a); err != nil {
		return fmt.Errorf("webhook: record attempt of %s: %w", dd.ID, err)
	}
	if d.opts.Metrics != nil {
		d.opts.Metrics(outcome)
	}
	return nil
}

// send POSTs the stored payload, freshly signed, and returns the status code (0
// without an answer) and what it sent, for the attempt log: an attempt refused
// before any request was made has no signature headers.
func (d *Dispatcher) send(ctx context.Context, dd store.DueDelivery) (int, *store.SentAttempt, error) {
	sent := &store.SentAttempt{SentAt: d.opts.Now()}
	if _, err := checkURLSyntax(dd.URL, d.opts.AllowLoopback || d.opts.AllowPrivate); err != nil {
		return 0, sent, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dd.URL, bytes.NewReader(dd.Payload))
	if err != nil {
		return 0, sent, fmt.Errorf("webhook: build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	h := Sign(dd.Secret, dd.EventID, sent.SentAt, dd.Payload)
	h.Apply(req.Header)
	sent.Signature, sent.SignatureID, sent.SignatureTime, sent.StandardSignature = h.Signature, h.ID, h.Timestamp, h.StandardSignature
	start := time.Now()
	resp, err := d.opts.HTTPClient.Do(req)
	if err != nil {
		sent.Duration = time.Since(start)
		return 0, sent, err
	}
	defer resp.Body.Close()
	// Drain a little so the connection can be reused; a huge body is not our problem.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	sent.Duration = time.Since(start)
	return resp.StatusCode, sent, nil
}

// jitter draws a value in [-1, 1).
func (d *Dispatcher) jitter() float64 {
	d.randMu.Lock()
	defer d.randMu.Unlock()
	return 2*d.opts.Rand.Float64() - 1
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
