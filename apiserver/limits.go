package apiserver

import (
	"context"
	"math"
	"net/http"
	"regexp"
	"strconv"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/ratelimit"
)

// limitTable holds the per-minute limits of DESIGN.md.
type limitTable struct {
	requests  map[discov1.TenantTier]int
	runs      map[discov1.TenantTier]int
	anonymous int
}

// Limits overrides the per-minute rate limits; a zero or missing entry keeps the default
// (requests 60/600/6,000 and run submissions 10/100/1,000 by tier, 300 per client address
// for unauthenticated traffic).
type Limits struct {
	Requests  map[discov1.TenantTier]int
	Runs      map[discov1.TenantTier]int
	Anonymous int
}

// limitsFrom applies overrides to the defaults.
func limitsFrom(o *Limits) limitTable {
	t := defaultLimits()
	if o == nil {
		return t
	}
	for tier, n := range o.Requests {
		if n > 0 {
			t.requests[tier] = n
		}
	}
	for tier, n := range o.Runs {
		if n > 0 {
			t.runs[tier] = n
		}
	}
	if o.Anonymous > 0 {
		t.anonymous = o.Anonymous
	}
	return t
}

func defaultLimits() limitTable {
	return limitTable{
		requests: map[discov1.TenantTier]int{
			discov1.TenantTierFree: 60, discov1.TenantTierTeam: 600, discov1.TenantTierEnterprise: 6000,
		},
		runs: map[discov1.TenantTier]int{
			discov1.TenantTierFree: 10, discov1.TenantTierTeam: 100, discov1.TenantTierEnterprise: 1000,
		},
		// Unauthenticated traffic (token exchange, login page, OpenAPI document, failed
		// credentials) is limited per client address; generous enough for an office
		// behind one NAT address, small enough to slow down credential guessing.
		anonymous: 300,
	}
}

// runSubmission matches the run submission endpoint, which has its own lower bucket.
var runSubmission = regexp.MustCompile(`^/v1/projects/[^/]+/campaigns/[^/]+/runs$`)

// countedKey marks a request's context with the bucket key it was counted under.
type countedKey struct{}

// rateLimit applies the caller's buckets and sets X-RateLimit-* on every response that
// passes through it, errors included. A request made in-process on behalf of one
// already counted under the same key (the REST call of an MCP tool, which carries the
// MCP request's context) is not counted again; run submissions still take from their
// own bucket.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := callerFrom(r.Context())
		var key string
		var limit int
		if c.tenant != nil {
			key, limit = "t:"+c.tenant.ID, s.limits.requests[c.tenant.Tier]
		} else {
			key, limit = "a:"+clientAddr(r), s.limits.anonymous
		}
		if limit <= 0 {
			limit = s.limits.requests[discov1.TenantTierFree]
		}
		if counted, _ := r.Context().Value(countedKey{}).(string); counted != key {
			if _, ok := s.allow(w, r, key, limit); !ok {
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), countedKey{}, key))
		}
		if c.tenant != nil && r.Method == http.MethodPost && runSubmission.MatchString(r.URL.Path) {
			if _, ok := s.allow(w, r, "r:"+c.tenant.ID, s.limits.runs[c.tenant.Tier]); !ok {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// allow takes one request from the bucket, writes the headers, and answers 429 when the
// bucket is empty. A limiter failure (Redis down) lets the request through: limits
// protect the service, they must not take it down.
func (s *Server) allow(w http.ResponseWriter, r *http.Request, key string, limit int) (ratelimit.Result, bool) {
	res, err := s.limiter.Allow(r.Context(), key, ratelimit.PerMinute(limit))
	if err != nil {
		s.log.Error(err, "rate limiter failed; allowing the request", "request_id", requestID(r.Context()))
		return res, true
	}
	h := w.Header()
	reset := s.now().Add(res.ResetAfter)
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
	s.fail(w, r, apierror.New(http.StatusTooManyRequests, apierror.CodeRateLimited,
		"rate limit of %d requests per minute exceeded; retry in %d s", limit, retry).
		With("limit", limit).With("retry_after_seconds", retry))
	return res, false
}
