// Package ratelimit limits requests with GCRA (the generic cell rate algorithm): each key
// has a theoretical arrival time that advances by one emission interval per request, and a
// request is refused when that time would run more than a full burst ahead of now. It
// gives the same answers as a token bucket refilled continuously, with one timestamp of
// state per key. The in-memory limiter serves one replica; the Redis limiter
// (github.com/go-redis/redis_rate, the same algorithm in a Lua script) shares limits across
// replicas.
package ratelimit

import (
	"context"
	"sync"
	"time"
)

// Limit is Rate requests per Period, with bursts of up to Rate.
type Limit struct {
	Rate   int
	Period time.Duration
}

// PerMinute returns a limit of n requests a minute.
func PerMinute(n int) Limit { return Limit{Rate: n, Period: time.Minute} }

// Result is the outcome of one request.
type Result struct {
	Allowed   bool
	Limit     int
	Remaining int
	// RetryAfter is how long to wait before a refused request would be allowed.
	RetryAfter time.Duration
	// ResetAfter is how long until the key is back to a full burst.
	ResetAfter time.Duration
}

// Limiter decides whether a request under key may proceed.
type Limiter interface {
	Allow(ctx context.Context, key string, limit Limit) (Result, error)
}

// Memory is an in-process GCRA limiter.
type Memory struct {
	now func() time.Time

	mu    sync.Mutex
	tat   map[string]time.Time
	calls int
}

// NewMemory returns an empty limiter; now may be nil for time.Now.
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, tat: map[string]time.Time{}}
}

// Allow implements Limiter.
func (m *Memory) Allow(_ context.Context, key string, limit Limit) (Result, error) {
	now := m.now()
	interval := limit.Period / time.Duration(limit.Rate)
	burst := time.Duration(limit.Rate) * interval

	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)

	tat := m.tat[key]
	if tat.Before(now) {
		tat = now
	}
	newTat := tat.Add(interval)
	allowAt := newTat.Add(-burst)
	if diff := now.Sub(allowAt); diff < 0 {
		return Result{Allowed: false, Limit: limit.Rate, Remaining: 0, RetryAfter: -diff, ResetAfter: tat.Sub(now)}, nil
	} else {
		m.tat[key] = newTat
		return Result{Allowed: true, Limit: limit.Rate, Remaining: int(diff / interval), ResetAfter: newTat.Sub(now)}, nil
	}
}

// sweep drops keys whose arrival time has passed (they are equivalent to unseen keys),
// every 1024 calls, so the map does not grow with every client address ever seen.
func (m *Memory) sweep(now time.Time) {
	m.calls++
	if m.calls%1024 != 0 {
		return
	}
	for k, t := range m.tat {
		if t.Before(now) {
			delete(m.tat, k)
		}
	}
}
