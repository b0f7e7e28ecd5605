package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

func mustWebhook(t *testing.T, st *store.Store, w store.Webhook) store.Webhook {
	t.Helper()
	if w.Secret == "" {
		w.Secret = "s3cret"
	}
	if w.URL == "" {
		w.URL = "https://example.test/hook"
	}
	got, err := st.CreateWebhook(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestWebhookRegistrations(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		w := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", ProjectID: "proj_1", Events: []string{"run.completed"}})
		if !ids.Valid(ids.Webhook, w.ID) || w.Status != store.WebhookActive {
			t.Fatalf("created %+v", w)
		}
		got, err := st.WebhookByID(ctx, "ten_a", w.ID)
		if err != nil || got.URL != w.URL || got.Secret != "s3cret" || !slices.Equal(got.Events, w.Events) {
			t.Fatalf("WebhookByID = %+v, %v", got, err)
		}
		if _, err := st.WebhookByID(ctx, "ten_b", w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("other tenant reads the registration: %v", err)
		}
		w2 := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", Events: []string{"*"}})
		list, err := st.ListWebhooks(ctx, "ten_a", 10, "")
		if err != nil || len(list) != 2 {
			t.Fatalf("ListWebhooks = %d, %v", len(list), err)
		}
		if page, _ := st.ListWebhooks(ctx, "ten_a", 10, list[0].ID); len(page) != 1 || page[0].ID != list[1].ID {
			t.Fatalf("second page = %+v", page)
		}
		if err := st.SetWebhookStatus(ctx, "ten_a", w2.ID, store.WebhookDisabled); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.WebhookByID(ctx, "ten_a", w2.ID); got.Status != store.WebhookDisabled {
			t.Errorf("status = %q after disabling", got.Status)
		}
		if err := st.DeleteWebhook(ctx, "ten_b", w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("delete from another tenant: %v", err)
		}
		if err := st.DeleteWebhook(ctx, "ten_a", w.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.WebhookByID(ctx, "ten_a", w.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleted registration still readable: %v", err)
		}
	})
}

func TestEnqueueEventFansOutToMatchingRegistrations(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		exact := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", ProjectID: "proj_1", Events: []string{"run.completed", "run.failed"}})
		wildcard := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", Events: []string{"*"}})
		mustWebhook(t, st, store.Webhook{TenantID: "ten_a", ProjectID: "proj_2", Events: []string{"run.completed"}}) // other project
		mustWebhook(t, st, store.Webhook{TenantID: "ten_a", ProjectID: "proj_1", Events: []string{"claim.created"}}) // other type
		mustWebhook(t, st, store.Webhook{TenantID: "ten_b", Events: []string{"*"}})                                  // other tenant
		disabled := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", Events: []string{"*"}})
		if err := st.SetWebhookStatus(ctx, "ten_a", disabled.ID, store.WebhookDisabled); err != nil {
			t.Fatal(err)
		}

		ev, deliveries, err := st.EnqueueEvent(ctx, "ten_a", "proj_1", store.Event{Type: "run.completed", Data: map[string]any{"run_id": "run_1"}})
		if err != nil {
			t.Fatal(err)
		}
		if !ids.Valid(ids.Event, ev.ID) || ev.CreatedAt.IsZero() {
			t.Fatalf("event not given an id and time: %+v", ev)
		}
		var targets []string
		for _, d := range deliveries {
			targets = append(targets, d.WebhookID)
			var env store.Event
			if err := json.Unmarshal(d.Payload, &env); err != nil || env.ID != ev.ID || env.Type != "run.completed" || env.Data["run_id"] != "run_1" {
				t.Errorf("payload %s is not the event envelope (%v)", d.Payload, err)
			}
		}
		want := []string{exact.ID, wildcard.ID}
		slices.Sort(targets)
		slices.Sort(want)
		if !slices.Equal(targets, want) {
			t.Fatalf("delivered to %v, want %v", targets, want)
		}
	})
}

func TestDeliveryLifecycle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		w := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", Events: []string{"*"}})
		_, ds, err := st.EnqueueEvent(ctx, "ten_a", "proj_1", store.Event{Type: "claim.created"})
		if err != nil || len(ds) != 1 {
			t.Fatalf("enqueue: %d deliveries, %v", len(ds), err)
		}
		now := time.Now()

		claimed, err := st.ClaimDueDeliveries(ctx, now, 10, time.Minute)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim: %d, %v", len(claimed), err)
		}
		if claimed[0].URL != w.URL || claimed[0].Secret != w.Secret || claimed[0].ID != ds[0].ID {
			t.Fatalf("claimed %+v", claimed[0])
		}
		if again, _ := st.ClaimDueDeliveries(ctx, now, 10, time.Minute); len(again) != 0 {
			t.Fatal("a leased delivery was handed out twice")
		}
		// A dispatcher that died: the lease runs out and the delivery comes back.
		if back, _ := st.ClaimDueDeliveries(ctx, now.Add(2*time.Minute), 10, time.Minute); len(back) != 1 {
			t.Fatal("delivery not reclaimed after its lease expired")
		}

		retry := now.Add(5 * time.Second)
		if err := st.RecordDeliveryAttempt(ctx, store.DeliveryAttempt{DeliveryID: ds[0].ID, StatusCode: 500, Error: "boom", NextAttemptAt: &retry}); err != nil {
			t.Fatal(err)
		}
		d, err := st.DeliveryByID(ctx, "ten_a", w.ID, ds[0].ID)
		if err != nil || d.Status != store.DeliveryFailed || d.Attempt != 1 || d.LastStatusCode != 500 || d.LastError != "boom" ||
			!d.NextAttemptAt.Equal(retry.Truncate(time.Millisecond).UTC()) {
			t.Fatalf("after failure: %+v, %v", d, err)
		}
		if early, _ := st.ClaimDueDeliveries(ctx, retry.Add(-time.Second), 10, time.Minute); len(early) != 0 {
			t.Fatal("claimed before its retry time")
		}
		due, err := st.ClaimDueDeliveries(ctx, retry, 10, time.Minute)
		if err != nil || len(due) != 1 {
			t.Fatalf("retry not claimable at its time: %d, %v", len(due), err)
		}
		if err := st.RecordDeliveryAttempt(ctx, store.DeliveryAttempt{DeliveryID: ds[0].ID, Succeeded: true, StatusCode: 204}); err != nil {
			t.Fatal(err)
		}
		d, _ = st.DeliveryByID(ctx, "ten_a", w.ID, ds[0].ID)
		if d.Status != store.DeliverySucceeded || d.Attempt != 2 {
			t.Fatalf("after success: %+v", d)
		}
		if more, _ := st.ClaimDueDeliveries(ctx, now.Add(time.Hour), 10, time.Minute); len(more) != 0 {
			t.Fatal("a succeeded delivery was claimed again")
		}

		// Redelivery queues a fresh copy and keeps the original.
		re, err := st.Redeliver(ctx, "ten_a", w.ID, ds[0].ID)
		if err != nil || re.ID == ds[0].ID || re.EventID != ds[0].EventID || string(re.Payload) != string(ds[0].Payload) || re.Status != store.DeliveryPending {
			t.Fatalf("redeliver = %+v, %v", re, err)
		}
		if _, err := st.Redeliver(ctx, "ten_b", w.ID, ds[0].ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("redeliver from another tenant: %v", err)
		}
		list, err := st.ListDeliveries(ctx, "ten_a", w.ID, 1, "")
		if err != nil || len(list) != 1 {
			t.Fatalf("list: %v, %v", list, err)
		}
		rest, err := st.ListDeliveries(ctx, "ten_a", w.ID, 10, list[0].ID)
		if err != nil || len(rest) != 1 || rest[0].ID == list[0].ID {
			t.Fatalf("second page: %+v, %v", rest, err)
		}
	})
}

func TestGoneDisablesWebhookAndKillsDelivery(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		w := mustWebhook(t, st, store.Webhook{TenantID: "ten_a", Events: []string{"*"}})
		_, ds, _ := st.EnqueueEvent(ctx, "ten_a", "proj_1", store.Event{Type: "run.failed"})
		_, ds2, _ := st.EnqueueEvent(ctx, "ten_a", "proj_1", store.Event{Type: "run.failed"})
		retry := time.Now().Add(time.Hour)
		if err := st.RecordDeliveryAttempt(ctx, store.DeliveryAttempt{DeliveryID: ds[0].ID, StatusCode: 410, DisableWebhook: true, NextAttemptAt: &retry}); err != nil {
			t.Fatal(err)
		}
		d, _ := st.DeliveryByID(ctx, "ten_a", w.ID, ds[0].ID)
		if d.Status != store.DeliveryDead {
			t.Errorf("delivery after 410 is %q, want dead", d.Status)
		}
		if got, _ := st.WebhookByID(ctx, "ten_a", w.ID); got.Status != store.WebhookDisabled {
			t.Errorf("webhook after 410 is %q, want disabled", got.Status)
		}
		if due, _ := st.ClaimDueDeliveries(ctx, time.Now().Add(time.Minute), 10, time.Minute); len(due) != 0 {
			t.Errorf("pending delivery %s of a disabled webhook was claimed", ds2[0].ID)
		}
		if err := st.RecordDeliveryAttempt(ctx, store.DeliveryAttempt{DeliveryID: "dlv_missing"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown delivery: %v", err)
		}
	})
}

// Concurrent dispatchers must never get the same delivery.
func TestConcurrentClaimsAreDisjoint(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		mustWebhook(t, st, store.Webhook{TenantID: "ten_a", Events: []string{"*"}})
		const events = 30
		for range events {
			if _, _, err := st.EnqueueEvent(ctx, "ten_a", "proj_1", store.Event{Type: "claim.created"}); err != nil {
				t.Fatal(err)
			}
		}
		now := time.Now().Add(time.Second)
		var (
			mu   sync.Mutex
			seen = map[string]int{}
			wg   sync.WaitGroup
		)
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					got, err := st.ClaimDueDeliveries(ctx, now, 4, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, d := range got {
						seen[d.ID]++
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(seen) != events {
			t.Fatalf("claimed %d distinct deliveries, want %d", len(seen), events)
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("delivery %s claimed %d times", id, n)
			}
		}
	})
}
