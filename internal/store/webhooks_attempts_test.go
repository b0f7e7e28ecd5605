package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// TestAttemptLogIsBoundedAndTenantScoped: a delivery keeps its last AttemptLogSize
// attempts, numbered from 1 and newest first; another tenant sees none of them; the
// log goes with its registration.
func TestAttemptLogIsBoundedAndTenantScoped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		w := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", Events: []string{"*"}})
		_, ds, err := st.EnqueueEvent(ctx, "ten_a", "proj_1", store.Event{Type: "claim.created"})
		if err != nil || len(ds) != 1 {
			t.Fatalf("enqueue: %d deliveries, %v", len(ds), err)
		}
		id := ds[0].ID
		start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		const attempts = store.AttemptLogSize + 5
		for i := 1; i <= attempts; i++ {
			at := start.Add(time.Duration(i) * time.Minute)
			next := at.Add(time.Minute)
			ts := strconv.FormatInt(at.Unix(), 10)
			a := store.DeliveryAttempt{DeliveryID: id, StatusCode: 500 + i, Error: "answered " + strconv.Itoa(500+i), NextAttemptAt: &next,
				Sent: &store.SentAttempt{SentAt: at, Duration: time.Duration(i) * time.Millisecond,
					Signature: "t=" + ts + ",v1=" + strconv.Itoa(i), SignatureID: ds[0].EventID, SignatureTime: ts, StandardSignature: "v1," + strconv.Itoa(i)}}
			if err := st.RecordDeliveryAttempt(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		// An attempt recorded without what it sent keeps no entry.
		if err := st.RecordDeliveryAttempt(ctx, store.DeliveryAttempt{DeliveryID: id, Succeeded: true, StatusCode: 200}); err != nil {
			t.Fatal(err)
		}
		logs, err := st.AttemptLogs(ctx, "ten_a", []string{id, "dlv_unknown"})
		if err != nil {
			t.Fatal(err)
		}
		got := logs[id]
		if len(logs) != 1 || len(got) != store.AttemptLogSize {
			t.Fatalf("logged %d deliveries, %d attempts; want 1 and %d", len(logs), len(got), store.AttemptLogSize)
		}
		for k, l := range got {
			n := attempts - k
			at := start.Add(time.Duration(n) * time.Minute)
			if l.Attempt != n || l.StatusCode != 500+n || l.Error != "answered "+strconv.Itoa(500+n) || !l.SentAt.Equal(at) ||
				l.Duration != time.Duration(n)*time.Millisecond || l.StandardSignature != "v1,"+strconv.Itoa(n) ||
				l.SignatureTime != strconv.FormatInt(at.Unix(), 10) || l.SignatureID != ds[0].EventID {
				t.Errorf("entry %d = %+v, want attempt %d", k, l, n)
			}
		}
		if other, err := st.AttemptLogs(ctx, "ten_b", []string{id}); err != nil || len(other) != 0 {
			t.Errorf("another tenant reads the attempt log: %v, %v", other, err)
		}
		if err := st.DeleteWebhook(ctx, "ten_a", w.ID); err != nil {
			t.Fatal(err)
		}
		if left, err := st.AttemptLogs(ctx, "ten_a", []string{id}); err != nil || len(left) != 0 {
			t.Errorf("the log outlived its registration: %v, %v", left, err)
		}
	})
}
