package transport

import (
	"context"
	"math"
	"net/http"
	"regexp"
	"strconv"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/ratelimit"
)

// Limits overrides the per-minute rate limits; a zero or missing entry keeps the default
// (requests 60/600/6,000 and run submissions 10/100/1,000 by tier, 300 per client address
// for unauthenticated traffic).
type Limits struct {
	Requests  map[discov1.TenantTier]int
	Runs      map[discov1.TenantTier]int
	Anonymous int
}

// limitsFrom applies overrides to the defaults.
func limitsFrom(o *Limits) Limits {
	t := defaultLimits()
	if o == nil {
		return t
	}
	for tier, n := range o.Requests {
		if n > 0 {
			t.Requests[tier] = n
		}
	}
	for tier, n := range o.Runs {
		if n > 0 {
			t.Runs[tier] = n
		}
	}
	if o.Anonymous > 0 {
		t.Anonymous = o.Anonymous
	}
	return t
}

func defaultLimits() Limits {
	return Limits{
		Requests: map[discov1.TenantTier]int{
			discov1.TenantTierFree: 60, discov1.TenantTierTeam: 600, discov1.TenantTierEnterprise: 6000,
		},
		Runs: map[discov1.TenantTier]int{
			discov1.TenantTierFree: 10, discov1.TenantTierTeam: 100, discov1.TenantTierEnterprise: 1000,
		},
		// Unauthenticated traffic (token exchange, login page, OpenAPI document, failed
		// credentials) is limited per client address; generous enough for an office
		// behind one NAT address, small enough to slow down credential guessing.
		Anonymous: 300,
	}
}

// runSubmission matches the run submission endpoint, which has its own lower bucket.
var runSubmission = regexp.MustCompile(`^/v1/projects/[^/]+/campaigns/[^/]+/runs$`)

// countedKey marks a request's context with the bucket key it was counted under.
type countedKey struct{}

// RateLimit applies the caller's buckets and sets X-RateLimit-* on every response that
// passes through it, errors included. A request made in-process on behalf of one
// already counted under the same key (the REST call of an MCP tool, which carries the
// MCP request's context) is not counted again; run submissions still take from their
// own bucket.
func (f *Front) RateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := auth.CallerFrom(r.Context())
		var key string
		var limit int
		if c.Tenant != nil {
			key, limit = "t:"+c.Tenant.ID, f.Limits.Requests[c.Tenant.Tier]
		} else {
			key, limit = "a:"+ClientAddr(r), f.Limits.Anonymous
		}
		if limit <= 0 {
			limit = f.Limits.Requests[discov1.TenantTierFree]
		}
		if counted, _ := r.Context().Value(countedKey{}).(string); counted != key {
			if _, ok := f.allow(w, r, key, limit); !ok {
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), countedKey{}, key))
		}
		if c.Tenant != nil && r.Method == http.MethodPost && runSubmission.MatchString(r.URL.Path) {
			if _, ok := f.allow(w, r, "r:"+c.Tenant.ID, f.Limits.Runs[c.Tenant.Tier]); !ok {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// allow takes one request from the bucket, writes the headers, and answers 429 when the
// bucket is empty. A limiter failure (Redis down) lets the request through: limits
// protect the service, they must not take it down.
func (f *Front) allow(w http.ResponseWriter, r *http.Request, key string, limit int) (ratelimit.Result, bool) {
	res, err := f.cfg.Limiter.Allow(r.Context(), key, ratelimit.PerMinute(limit))
	if err != nil {
		f.cfg.Log.Error(err, "rate limiter failed; allowing the request", "request_id", RequestID(r.Context()))
		return res, true
	}
	h := w.Header()
	reset := f.now().Add(res.ResetAfter)
	h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(max(res.Remaining, 0)))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(int64(math.Ceil(float64(reset.UnixNano())/1e9)), 10))
	if res.Allowed {
		return res, true
	}
	retry := int(math.Ceil(res.RetryAfter.Seconds()))
	if retry < 1 {
		retry = 1
	}
	h.Set("Retry-After", strconv.Itoa(retry))
	Fail(w, r, apierror.New(http.StatusTooManyRequests, apierror.CodeRateLimited,
		"rate limit of %d requests per minute exceeded; retry in %d s", limit, retry).
		With("limit", limit).With("retry_after_seconds", retry))
	return res, false
}
