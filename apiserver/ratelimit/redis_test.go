package ratelimit

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// Two replicas (two Redis limiters) share one bucket: between them they allow exactly the
// limit. Runs when DISCO_TEST_REDIS_URL names a Redis server (.ci/run starts one).
func TestRedisSharedAcrossReplicas(t *testing.T) {
	url := os.Getenv("DISCO_TEST_REDIS_URL")
	if url == "" {
		t.Skip("DISCO_TEST_REDIS_URL is not set")
	}
	a, err := NewRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewRedis(url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	key := "test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	limit := PerMinute(5)
	allowed := 0
	var last Result
	for i := 0; i < 10; i++ {
		l := a
		if i%2 == 1 {
			l = b
		}
		res, err := l.Allow(ctx, key, limit)
		if err != nil {
			t.Fatal(err)
		}
		if res.Allowed {
			allowed++
		}
		last = res
	}
	if allowed != 5 {
		t.Fatalf("two replicas allowed %d of 10 requests against a limit of 5", allowed)
	}
	if last.Allowed || last.RetryAfter <= 0 || last.Remaining != 0 {
		t.Fatalf("refused request result = %+v", last)
	}
}
