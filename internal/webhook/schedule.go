package webhook

import "time"

// RetryWindow bounds how long a delivery is retried, counted from its first
// attempt (the time it was queued).
const RetryWindow = 72 * time.Hour

// Schedule holds the delay after each failed attempt: after attempt n (1-based)
// the next one waits Schedule[n-1]. The attempt after the last entry is the final
// one, placed at the end of RetryWindow.
var Schedule = []time.Duration{
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	10 * time.Hour,
	14 * time.Hour,
	20 * time.Hour,
}

// JitterFraction is the relative spread applied to each delay, so that endpoints
// recovering from an outage are not hit by every queued delivery at once.
const JitterFraction = 0.10

// NextAttempt returns when to retry a delivery queued at first, whose attempt
// number attempts (1-based, the one just made) failed at last. jitter in [-1, 1]
// scales the delay by up to ±JitterFraction. ok is false when no attempt is left:
// the final attempt at first+RetryWindow has been made, or the window has passed.
// A retry is never scheduled past the window; one that would be is moved to its
// end and becomes the final attempt.
func NextAttempt(first, last time.Time, attempts int, jitter float64) (next time.Time, ok bool) {
	deadline := first.Add(RetryWindow)
	if attempts < 1 || !last.Before(deadline) || attempts > len(Schedule)+1 {
		return time.Time{}, false
	}
	if attempts > len(Schedule) {
		return deadline, true
	}
	jitter = max(-1, min(1, jitter))
	delay := time.Duration(float64(Schedule[attempts-1]) * (1 + JitterFraction*jitter))
	next = last.Add(delay)
	if next.After(deadline) {
		next = deadline
	}
	return next, true
}
