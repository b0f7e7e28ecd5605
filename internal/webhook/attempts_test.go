package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// TestAttemptsAreLoggedWithTheirSignatures: every attempt is logged with its time,
// answer and the signature headers the endpoint received (issue 15), newest first,
// and nothing logged is the secret.
func TestAttemptsAreLoggedWithTheirSignatures(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		clock := newFakeClock()
		rcv := newReceiver(t, clock, 500)
		p, wh := setup(t, st, clock, rcv.URL)
		d := newTestDispatcher(st, clock, 4)
		publish(t, p)
		first := clock.Now()
		deliverOnce(t, d, 1)
		clock.Set(onlyDelivery(t, st, wh.ID).NextAttemptAt)
		deliverOnce(t, d, 1)

		dl := onlyDelivery(t, st, wh.ID)
		logs, err := st.AttemptLogs(context.Background(), testTenant, []string{dl.ID})
		if err != nil {
			t.Fatal(err)
		}
		got, sent := logs[dl.ID], rcv.requests()
		if len(got) != 2 || len(sent) != 2 {
			t.Fatalf("logged %d attempts, receiver saw %d; want 2 and 2", len(got), len(sent))
		}
		wants := []struct {
			attempt, code int
			err           string
		}{{2, 200, ""}, {1, 500, "endpoint answered 500"}}
		for i, w := range wants {
			l, h := got[i], sent[w.attempt-1].Header
			if l.Attempt != w.attempt || l.StatusCode != w.code || l.Error != w.err {
				t.Errorf("entry %d = attempt %d, %d %q; want attempt %d, %d %q", i, l.Attempt, l.StatusCode, l.Error, w.attempt, w.code, w.err)
			}
			if l.Signature != h.Get(SignatureHeader) || l.SignatureID != h.Get(StandardIDHeader) ||
				l.SignatureTime != h.Get(StandardTimestampHeader) || l.StandardSignature != h.Get(StandardSignatureHeader) || l.Signature == "" {
				t.Errorf("attempt %d logged %+v, the endpoint received %v", w.attempt, l.SentAttempt, h)
			}
		}
		if !got[1].SentAt.Equal(first) || got[1].SignatureTime != fmt.Sprint(first.Unix()) {
			t.Errorf("first attempt sent at %v (%s), want %v", got[1].SentAt, got[1].SignatureTime, first)
		}
		for _, l := range got {
			if containsSecret(l) {
				t.Errorf("an attempt log holds the secret: %+v", l)
			}
		}
	})
}

func containsSecret(l store.AttemptLog) bool {
	return strings.Contains(fmt.Sprintf("%+v", l), testSecret)
}
