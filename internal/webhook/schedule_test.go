package webhook

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestNextAttempt(t *testing.T) {
	first := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	at := first.Add
	deadline := at(RetryWindow)
	tests := []struct {
		name     string
		last     time.Time
		attempts int
		jitter   float64
		want     time.Time
		ok       bool
	}{
		{"after 1st", first, 1, 0, at(5 * time.Second), true},
		{"after 1st, +10%", first, 1, 1, at(5500 * time.Millisecond), true},
		{"after 1st, -10%", first, 1, -1, at(4500 * time.Millisecond), true},
		{"jitter clamped", first, 1, 7, at(5500 * time.Millisecond), true},
		{"after 2nd", at(5 * time.Second), 2, 0, at(5*time.Second + 5*time.Minute), true},
		{"after 3rd", at(time.Hour), 3, 0, at(time.Hour + 30*time.Minute), true},
		{"after 4th", at(time.Hour), 4, 0, at(3 * time.Hour), true},
		{"after 5th", at(time.Hour), 5, 0, at(6 * time.Hour), true},
		{"after 6th", at(time.Hour), 6, 0, at(11 * time.Hour), true},
		{"after 7th", at(time.Hour), 7, 0, at(11 * time.Hour), true},
		{"after 8th", at(time.Hour), 8, 0, at(15 * time.Hour), true},
		{"after 9th", at(time.Hour), 9, 0, at(21 * time.Hour), true},
		{"after 9th, capped at 72h", at(60 * time.Hour), 9, 1, deadline, true},
		{"after 10th: final at 72h", at(62 * time.Hour), 10, -1, deadline, true},
		{"after 11th: dead", deadline, 11, 0, time.Time{}, false},
		{"window over early", at(73 * time.Hour), 4, 0, time.Time{}, false},
		{"at the deadline", deadline, 3, 0, time.Time{}, false},
		{"no attempt yet", first, 0, 0, time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NextAttempt(first, tt.last, tt.attempts, tt.jitter)
			if ok != tt.ok || !got.Equal(tt.want) {
				t.Fatalf("NextAttempt = %v, %v; want %v, %v", got.Sub(first), ok, tt.want.Sub(first), tt.ok)
			}
		})
	}
}

// TestScheduleWalk follows whole retry sequences with random jitter: every delay
// is within ±10% of the schedule unless cut at the window, nothing lands past 72 h,
// and the last attempt is at exactly 72 h.
func TestScheduleWalk(t *testing.T) {
	first := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	deadline := first.Add(RetryWindow)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		last, attempts := first, 1
		for {
			next, ok := NextAttempt(first, last, attempts, 2*r.Float64()-1)
			if !ok {
				break
			}
			if next.After(deadline) {
				t.Fatalf("attempt %d scheduled past the window: %v", attempts+1, next.Sub(first))
			}
			if attempts <= len(Schedule) && !next.Equal(deadline) {
				base := Schedule[attempts-1]
				lo, hi := time.Duration(float64(base)*0.9), time.Duration(float64(base)*1.1)
				if d := next.Sub(last); d < lo || d > hi {
					t.Fatalf("delay after attempt %d = %v, want in [%v, %v]", attempts, d, lo, hi)
				}
			}
			last, attempts = next, attempts+1
		}
		if !last.Equal(deadline) || attempts != len(Schedule)+2 {
			t.Fatalf("sequence ended after %d attempts at %v, want %d at 72h", attempts, last.Sub(first), len(Schedule)+2)
		}
	}
}
