package signin

import (
	"testing"
	"time"
)

// loginLock starts at 30 s after 5 failures and doubles up to 15 minutes.
func TestLoginLock(t *testing.T) {
	want := []time.Duration{0, 0, 0, 0, 30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 15 * time.Minute, 15 * time.Minute}
	for i, w := range want {
		if got := loginLock(i + 1); got != w {
			t.Errorf("loginLock(%d) = %v, want %v", i+1, got, w)
		}
	}
	if got := loginLock(1000); got != loginMaxLock {
		t.Errorf("loginLock(1000) = %v", got)
	}
}
