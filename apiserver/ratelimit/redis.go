package ratelimit

import (
	"context"
	"fmt"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Redis is a GCRA limiter whose state lives in Redis, shared by every replica.
type Redis struct {
	limiter *redis_rate.Limiter
	client  *redis.Client
}

// NewRedis connects to the Redis at url (redis://host:port/db).
func NewRedis(url string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: redis url: %w", err)
	}
	c := redis.NewClient(opts)
	return &Redis{limiter: redis_rate.NewLimiter(c), client: c}, nil
}

// Allow implements Limiter.
func (r *Redis) Allow(ctx context.Context, key string, limit Limit) (Result, error) {
	res, err := r.limiter.Allow(ctx, "disco:rl:"+key, redis_rate.Limit{Rate: limit.Rate, Burst: limit.Rate, Period: limit.Period})
	if err != nil {
		return Result{}, err
	}
	return Result{
		Allowed:    res.Allowed > 0,
		Limit:      limit.Rate,
		Remaining:  res.Remaining,
		RetryAfter: max(res.RetryAfter, 0),
		ResetAfter: max(res.ResetAfter, 0),
	}, nil
}

// Close closes the connection pool.
func (r *Redis) Close() error { return r.client.Close() }
