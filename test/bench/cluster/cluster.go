package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"os"
	"sort"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/live"
)

type bench struct {
	o     options
	creds live.Credentials // .cluster/credentials.json, written by hack/cluster.sh
	cfg   *rest.Config
	kube  client.Client
	http  *http.Client
}

func connect(ctx context.Context, o options) (*bench, error) {
	creds, err := live.ReadCredentials(o.creds)
	if err != nil {
		return nil, fmt.Errorf("%v (run make cluster-up)", err)
	}
	// Submissions to one campaign are serialised by the facade (runs.Service.Create reads
	// the campaign's runs from the API server under a lock), so in a burst of 16 in flight
	// the last waits for 15 others: on a loaded machine that is more than a minute.
	b := &bench{o: o, creds: creds, http: &http.Client{Timeout: 5 * time.Minute}}
	if b.cfg, err = clientcmd.BuildConfigFromFlags("", b.creds.Kubeconfig); err != nil {
		return nil, err
	}
	b.cfg.QPS, b.cfg.Burst = 500, 1000
	if b.kube, err = live.KubeClient(b.cfg); err != nil {
		return nil, err
	}
	if code, _, err := b.do(ctx, "GET", "/projects?limit=1", nil); err != nil || code != 200 {
		return nil, fmt.Errorf("the facade at %s answers %d, %v", b.creds.BaseURL, code, err)
	}
	return b, nil
}

// do calls the facade, waiting out 429s as the contract tells clients to (Retry-After).
func (b *bench) do(ctx context.Context, method, path string, body any) (int, map[string]any, error) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	for {
		req, err := http.NewRequestWithContext(ctx, method, b.creds.BaseURL+path, bytes.NewReader(raw))
		if err != nil {
			return 0, nil, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		code, out, retry, err := b.send(req)
		if err != nil || code != http.StatusTooManyRequests {
			return code, out, err
		}
		select {
		case <-ctx.Done():
			return 0, nil, ctx.Err()
		case <-time.After(retry):
		}
	}
}

func (b *bench) send(req *http.Request) (int, map[string]any, time.Duration, error) {
	req.Header.Set("Authorization", "Bearer "+b.creds.APIKey)
	res, err := b.http.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	out := map[string]any{}
	_ = json.Unmarshal(raw, &out)
	retry := time.Second
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
		retry = time.Duration(s) * time.Second
	}
	return res.StatusCode, out, retry, nil
}

func (b *bench) must(ctx context.Context, want int, method, path string, body any) (map[string]any, error) {
	code, out, err := b.do(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	if code != want {
		return nil, fmt.Errorf("%s %s = %d, want %d: %v", method, path, code, want, out)
	}
	return out, nil
}

// workspace makes a project, a campaign with room for n runs, and a profiled dataset.
func (b *bench) workspace(ctx context.Context, name string, n int) (pid, cid, did string, err error) {
	p, err := b.must(ctx, 201, "POST", "/projects", map[string]any{"name": name})
	if err != nil {
		return
	}
	pid = p["id"].(string)
	c, err := b.must(ctx, 201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": name,
		"budget": map[string]any{"compute_units": 1000000000, "max_runs": n + 10}})
	if err != nil {
		return
	}
	cid = c["id"].(string)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	f, _ := w.CreateFormFile("file", "quadratic.csv")
	_, _ = f.Write(live.QuadraticCSV(240))
	_ = w.WriteField("metadata", `{"name": "quadratic", "format": "csv"}`)
	_ = w.Close()
	req, err := http.NewRequestWithContext(ctx, "POST", b.creds.BaseURL+"/projects/"+pid+"/datasets", &buf)
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	code, out, _, err := b.send(req)
	if err != nil {
		return
	}
	if code != 201 {
		err = fmt.Errorf("upload = %d: %v", code, out)
		return
	}
	did = out["id"].(string)
	for {
		ds, e := b.must(ctx, 200, "GET", "/projects/"+pid+"/datasets/"+did, nil)
		if e != nil {
			err = e
			return
		}
		switch ds["status"] {
		case "ready":
			return
		case "failed":
			err = fmt.Errorf("dataset %s failed: %v", did, ds)
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// submit submits a small symbolic run; i makes its parameters distinct (epochs, which the
// symbolic mode does not use), as the facade refuses a duplicate of a queued run.
func (b *bench) submit(ctx context.Context, pid, cid, did string, i int) (string, error) {
	out, err := b.must(ctx, 201, "POST", "/projects/"+pid+"/campaigns/"+cid+"/runs", map[string]any{
		"mode": "symbolic", "dataset_id": did,
		"parameters": map[string]any{"target_variables": []string{"y"}, "max_complexity": 10, "epochs": 100 + i},
	})
	if err != nil {
		return "", err
	}
	return out["id"].(string), nil
}

// tenant reads the credentials' tenant.
func (b *bench) tenant(ctx context.Context) (*discov1.Tenant, error) {
	t := &discov1.Tenant{}
	return t, b.kube.Get(ctx, client.ObjectKey{Name: ids.ToName(b.creds.TenantID)}, t)
}

// withTenant changes the credentials' tenant for one scenario and returns the undo. The
// scenarios raise the tier to enterprise: the free tier's 60 requests a minute would
// measure the rate limiter, not the cluster.
func (b *bench) withTenant(ctx context.Context, change func(*discov1.Tenant)) (func(), error) {
	t, err := b.tenant(ctx)
	if err != nil {
		return nil, err
	}
	before := t.DeepCopy()
	change(t)
	if err := b.kube.Patch(ctx, t, client.MergeFrom(before)); err != nil {
		return nil, err
	}
	return func() {
		latest, err := b.tenant(context.Background())
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-cluster: restoring the tenant:", err)
			return
		}
		orig := latest.DeepCopy()
		latest.Spec.Tier, latest.Spec.Quota, latest.Spec.ConcurrentRuns = before.Spec.Tier, before.Spec.Quota, before.Spec.ConcurrentRuns
		if err := b.kube.Patch(context.Background(), latest, client.MergeFrom(orig)); err != nil {
			fmt.Fprintln(os.Stderr, "bench-cluster: restoring the tenant:", err)
		}
	}, nil
}

// quantiles are the p50, p95 and max of xs (nearest rank).
func quantiles(xs []float64) map[string]float64 {
	if len(xs) == 0 {
		return nil
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := func(p float64) float64 { return s[max(0, int(math.Ceil(p*float64(len(s))))-1)] }
	return map[string]float64{"p50": rank(0.5), "p95": rank(0.95), "min": s[0], "max": s[len(s)-1], "n": float64(len(s))}
}
