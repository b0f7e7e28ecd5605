package webhook

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

func TestPublish(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		clock := newFakeClock()
		p, wh := setup(t, st, clock, "http://127.0.0.1:1/", RunCompleted, ClaimCreated)
		other, err := st.CreateWebhook(ctx, store.Webhook{TenantID: testTenant, ProjectID: "proj_other",
			URL: "http://127.0.0.1:1/", Events: []string{"*"}, Secret: testSecret})
		if err != nil {
			t.Fatal(err)
		}

		id := publish(t, p)
		if !ids.Valid(ids.Event, id) {
			t.Fatalf("event id %q is not an evt_ id", id)
		}
		d := onlyDelivery(t, st, wh.ID)
		if d.EventID != id || d.EventType != RunCompleted || d.Status != store.DeliveryPending {
			t.Fatalf("delivery = %+v", d)
		}
		var env struct {
			ID        string         `json:"id"`
			Type      string         `json:"type"`
			CreatedAt string         `json:"created_at"`
			Data      map[string]any `json:"data"`
		}
		if err := json.Unmarshal(d.Payload, &env); err != nil {
			t.Fatal(err)
		}
		created, err := time.Parse(time.RFC3339, env.CreatedAt)
		if err != nil || !created.Equal(clock.Now()) || created.Location() != time.UTC {
			t.Errorf("created_at = %q (%v)", env.CreatedAt, err)
		}
		if env.ID != id || env.Type != RunCompleted || env.Data["project_id"] != testProject || env.Data["run_id"] != "run_1" {
			t.Errorf("envelope = %+v", env)
		}
		// The other project's registration and unsubscribed types get nothing.
		if ds, _ := st.ListDeliveries(ctx, testTenant, other.ID, 10, ""); len(ds) != 0 {
			t.Errorf("other project's registration got %d deliveries", len(ds))
		}
		if _, err := p.Publish(ctx, testTenant, testProject, BudgetExhausted, map[string]any{"campaign_id": "camp_1"}); err != nil {
			t.Fatal(err)
		}
		if ds, _ := st.ListDeliveries(ctx, testTenant, wh.ID, 10, ""); len(ds) != 1 {
			t.Errorf("unsubscribed type was queued: %d deliveries", len(ds))
		}
	})
}

func TestPublishRefusesBadEvents(t *testing.T) {
	st := storetest.OpenSQLite(t)
	p := NewPublisher(st, nil)
	ctx := context.Background()
	if _, err := p.Publish(ctx, testTenant, testProject, "run.exploded", nil); err == nil {
		t.Error("unknown type accepted")
	}
	if _, err := p.Publish(ctx, testTenant, testProject, RunCompleted, map[string]any{"run_id": "run_1"}); err == nil {
		t.Error("run.completed without its contract fields accepted")
	}
	data := map[string]any{"claim_id": "clm_1", "run_id": "run_1", "type": "law", "tier": "explore", "score": 0.8}
	if _, err := p.Publish(ctx, testTenant, testProject, ClaimCreated, data); err != nil {
		t.Errorf("valid claim.created refused: %v", err)
	}
	if _, ok := data["project_id"]; ok {
		t.Error("Publish mutated the caller's data")
	}
}
