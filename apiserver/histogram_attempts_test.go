package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/webhook"
)

// TestDatasetProfileHistogram: the profile the facade serves carries each numeric
// column's range and histogram as engine/data computes it from the uploaded file,
// and a text column's most frequent values instead (issue 15).
func TestDatasetProfileHistogram(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	csv := []byte("<img src=x onerror=alert(1)>,label,empty\n1,a,\n2,b,\n2,a,\n3,d,\nNA,<b>,\n")
	did := upload(t, key, pid, "h.csv", csv, `{"name": "h", "format": "csv"}`).expect(t, 201).str("id")
	profileDataset(t, did)

	pr := call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did+"/profile", key, nil).expect(t, 200)
	var prof struct {
		Columns []struct {
			Name      string   `json:"name"`
			Min       *float64 `json:"min"`
			Max       *float64 `json:"max"`
			TopValues []struct {
				Value string
				Count int
			} `json:"top_values"`
			DistinctValues *int `json:"distinct_values"`
			Histogram      *struct {
				Low, High      float64
				Counts         []int
				NegInf, PosInf int
			} `json:"histogram"`
		} `json:"columns"`
	}
	if err := json.Unmarshal(pr.Raw, &prof); err != nil || len(prof.Columns) != 3 {
		t.Fatalf("profile %s: %v", pr.Raw, err)
	}
	x := prof.Columns[0]
	if x.Name != "<img src=x onerror=alert(1)>" || x.Min == nil || *x.Min != 1 || x.Histogram == nil {
		t.Fatalf("numeric column %s", pr.Raw)
	}
	if h := x.Histogram; h.Low != 0.5 || h.High != 3.5 || len(h.Counts) != 3 || h.Counts[0] != 1 || h.Counts[1] != 2 || h.Counts[2] != 1 {
		t.Errorf("histogram %+v, want [1 2 1] over [0.5, 3.5]", *h)
	}
	for _, c := range prof.Columns[1:] {
		if c.Histogram != nil || c.Min != nil {
			t.Errorf("column %q has a histogram: %s", c.Name, pr.Raw)
		}
	}
	if l := prof.Columns[1]; len(l.TopValues) != 4 || l.TopValues[0].Value != "a" || l.TopValues[0].Count != 2 || l.TopValues[1].Value != "<b>" ||
		l.DistinctValues == nil || *l.DistinctValues != 4 || prof.Columns[0].TopValues != nil {
		t.Errorf("top values of the text column: %s", pr.Raw)
	}
	if !strings.Contains(string(pr.Raw), `"histogram":null`) || !strings.Contains(string(pr.Raw), `"max":3`) {
		t.Errorf("profile does not state min, max and histogram for every column: %s", pr.Raw)
	}
	call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did+"/profile", env.adminB, nil).expect(t, 404)
}

// profileDataset profiles the stored upload with engine/data as the profiler does,
// stores the profile and marks the dataset ready.
func profileDataset(t *testing.T, datasetID string) {
	t.Helper()
	ctx := context.Background()
	var ds discov1.Dataset
	must(t, env.direct.Get(ctx, client.ObjectKey{Namespace: nsA(), Name: ids.ToName(datasetID)}, &ds))
	rc, err := env.blob.Get(ctx, ds.Spec.BlobKey)
	must(t, err)
	raw, err := io.ReadAll(rc)
	rc.Close()
	must(t, err)
	p, err := data.ProfileReader(bytes.NewReader(raw), int64(len(raw)), "csv")
	must(t, err)
	body, err := json.Marshal(p)
	must(t, err)
	key := tenantProfileKey(env.tenantA, &ds)
	must(t, env.blob.Put(ctx, key, body))
	now := metav1.Now()
	ds.Status = discov1.DatasetStatus{Phase: discov1.DatasetReady, Rows: int64(p.RowCount), Columns: int32(p.ColumnCount), ProfileKey: key, ProfiledAt: &now}
	must(t, env.direct.Status().Update(ctx, &ds))
	inFacadeCache(t, &ds)
}

// TestDeliveryAttemptLog: after the dispatcher delivered a promotion event (failing
// once, then succeeding), the delivery's attempt log in the list and on the new
// delivery resource holds both attempts with the signature headers the endpoint
// received, which verify with the secret; the secret itself appears nowhere; another
// tenant gets 404 (issue 15).
func TestDeliveryAttemptLog(t *testing.T) {
	key := env.adminA
	const secret = "attempt-log-secret-0123456789"
	// Attempts are made at a clock moved past each retry time; the endpoint checks
	// the signatures against the same clock.
	var mu sync.Mutex
	var got []http.Header
	codes := []int{503}
	clock := time.Now()
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if err := webhook.Verify(secret, r.Header, body, clock, 0); err != nil {
			t.Errorf("receiver: %v", err)
		}
		got = append(got, r.Header.Clone())
		code := http.StatusNoContent
		if len(codes) > 0 {
			code, codes = codes[0], codes[1:]
		}
		w.WriteHeader(code)
	}))
	defer rcv.Close()

	pid := mustProject(t, key, map[string]any{"name": "attempts", "settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "publish"}}})
	cid := mustCampaign(t, key, pid, nil, nil)
	wh := call(t, "POST", "/v1/webhooks", key, map[string]any{"url": rcv.URL + "/hook", "events": []string{"claim.promoted"}, "project_id": pid, "secret": secret}).expect(t, 201).str("id")
	clm := makeClaim(t, pid, cid, "run_aaaaaaaaaaaaaaaaaaaaaaaaaa", "law", 0.95, true)
	call(t, "POST", "/v1/projects/"+pid+"/claims/"+clm+"/promote", key, map[string]any{"target_tier": "validate"}).expect(t, 200)

	mu.Lock()
	clock = time.Now().Add(time.Second) // the delivery is due
	mu.Unlock()
	d := webhook.NewDispatcher(env.store, webhook.DispatcherOptions{AllowLoopback: true, Now: now, Rand: rand.New(rand.NewPCG(1, 1))})
	deliverDue(t, d)
	mu.Lock()
	clock = clock.Add(time.Hour)
	mu.Unlock()
	deliverDue(t, d)
	mu.Lock()
	sent := append([]http.Header(nil), got...)
	mu.Unlock()
	if len(sent) < 2 {
		t.Fatalf("the endpoint got %d requests, want 2", len(sent))
	}

	l := call(t, "GET", "/v1/webhooks/"+wh+"/deliveries", key, nil).expect(t, 200)
	var list struct {
		Data []deliveryWithLog `json:"data"`
	}
	must(t, json.Unmarshal(l.Raw, &list))
	if len(list.Data) != 1 {
		t.Fatalf("deliveries %s", l.Raw)
	}
	dl := list.Data[0]
	one := call(t, "GET", "/v1/webhooks/"+wh+"/deliveries/"+dl.ID, key, nil).expect(t, 200)
	var single deliveryWithLog
	must(t, json.Unmarshal(one.Raw, &single))
	for _, v := range []deliveryWithLog{dl, single} {
		if v.Attempts != 2 || len(v.AttemptLog) != 2 || v.AttemptLog[0].Attempt != 2 || v.AttemptLog[0].StatusCode != 204 ||
			v.AttemptLog[1].StatusCode != 503 || v.AttemptLog[1].Error == "" || v.AttemptLog[0].SentAt.IsZero() {
			t.Fatalf("delivery %+v", v)
		}
		for i, a := range v.AttemptLog {
			h := sent[len(v.AttemptLog)-1-i]
			s := a.Signature
			if s == nil || s.XServiceSignature != h.Get(webhook.SignatureHeader) || s.WebhookID != h.Get(webhook.StandardIDHeader) ||
				s.WebhookTimestamp != h.Get(webhook.StandardTimestampHeader) || s.WebhookSignature != h.Get(webhook.StandardSignatureHeader) {
				t.Errorf("attempt %d logged %+v, the endpoint received %v", a.Attempt, s, h)
			}
		}
	}
	for _, raw := range [][]byte{l.Raw, one.Raw} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the secret is served: %s", raw)
		}
	}
	call(t, "GET", "/v1/webhooks/"+wh+"/deliveries/"+dl.ID, env.adminB, nil).expect(t, 404)
	call(t, "GET", "/v1/webhooks/"+wh+"/deliveries", env.adminB, nil).expect(t, 404)
	call(t, "GET", "/v1/webhooks/"+wh+"/deliveries/dlv_aaaaaaaaaaaaaaaaaaaaaaaaaa", key, nil).expect(t, 404)
	call(t, "GET", "/v1/webhooks/"+wh+"/deliveries/..%2Fx", key, nil).expect(t, 404)
}

type deliveryWithLog struct {
	ID         string `json:"id"`
	Attempts   int    `json:"attempts"`
	AttemptLog []struct {
		Attempt    int       `json:"attempt"`
		SentAt     time.Time `json:"sent_at"`
		StatusCode int       `json:"status_code"`
		Error      string    `json:"error"`
		Signature  *struct {
			XServiceSignature string `json:"x_service_signature"`
			WebhookID         string `json:"webhook_id"`
			WebhookTimestamp  string `json:"webhook_timestamp"`
			WebhookSignature  string `json:"webhook_signature"`
		} `json:"signature"`
	} `json:"attempt_log"`
}

// deliverDue runs the dispatcher until nothing is due (other tests' deliveries to
// unreachable endpoints included).
func deliverDue(t *testing.T, d *webhook.Dispatcher) {
	t.Helper()
	for range 10 {
		n, err := d.DeliverOnce(context.Background())
		must(t, err)
		if n == 0 {
			return
		}
	}
}
