// Package live holds what the suites that drive a running disco share: test/e2e and the
// dashboard's browser test (against `disco dev`), and test/cluster and test/bench/cluster
// (against `make cluster-up`). It has a small JSON client for the REST API with waits for a
// ready dataset and a run's end, a poller, the dataset they upload, the credentials file,
// a Kubernetes client, and a starter of `disco dev` (dev.go).
package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"path"
	"strings"
	"testing"
	"time"
)

// Client calls the REST API at Base (the /v1 prefix included) with the API key Key, and fails
// T when a request cannot be sent.
type Client struct {
	T    testing.TB
	Base string
	Key  string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
}

// Do sends body as JSON (none when nil) with the API key and returns the status and the
// decoded JSON object.
func (c *Client) Do(method, path string, body any) (int, map[string]any) {
	c.T.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		c.T.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.Send(req)
}

// Send sends req as it is (no credential is added) and returns the status and the decoded
// JSON object (empty when the body is not one).
func (c *Client) Send(req *http.Request) (int, map[string]any) {
	c.T.Helper()
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	out := map[string]any{}
	_ = json.NewDecoder(io.LimitReader(res.Body, 16<<20)).Decode(&out)
	return res.StatusCode, out
}

// Must is Do that fails T unless the status is want.
func (c *Client) Must(want int, method, path string, body any) map[string]any {
	c.T.Helper()
	code, out := c.Do(method, path, body)
	if code != want {
		c.T.Fatalf("%s %s = %d, want %d: %v", method, path, code, want, out)
	}
	return out
}

// Upload uploads csv as the CSV dataset name of the project and fails T unless it is
// created.
func (c *Client) Upload(projectID, name string, csv []byte) map[string]any {
	c.T.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	f, _ := w.CreateFormFile("file", name+".csv")
	_, _ = f.Write(csv)
	_ = w.WriteField("metadata", fmt.Sprintf(`{"name": %q, "format": "csv"}`, name))
	_ = w.Close()
	req, err := http.NewRequest("POST", c.Base+"/projects/"+projectID+"/datasets", &buf)
	if err != nil {
		c.T.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	code, out := c.Send(req)
	if code != http.StatusCreated {
		c.T.Fatalf("upload = %d: %v", code, out)
	}
	return out
}

// ReadyDataset uploads csv as the CSV dataset name of the project and waits up to timeout
// until it is profiled; it fails T when the profiling fails.
func (c *Client) ReadyDataset(projectID, name string, csv []byte, timeout time.Duration) string {
	c.T.Helper()
	did := c.Upload(projectID, name, csv)["id"].(string)
	Eventually(c.T, timeout, "dataset "+did+" ready", func() bool {
		_, out := c.Do("GET", "/projects/"+projectID+"/datasets/"+did, nil)
		if out["status"] == "failed" {
			c.T.Fatalf("dataset failed: %v", out)
		}
		return out["status"] == "ready"
	})
	return did
}

// RunEnded waits up to timeout until the run at runPath (/projects/…/runs/ID) has ended, and
// returns its last status object.
func (c *Client) RunEnded(runPath string, timeout time.Duration) map[string]any {
	c.T.Helper()
	var st map[string]any
	Eventually(c.T, timeout, "run "+path.Base(runPath)+" finished", func() bool {
		_, st = c.Do("GET", runPath+"/status", nil)
		return Ended(st)
	})
	return st
}

// Ended tells whether the run status object st is final: completed, failed or cancelled.
func Ended(st map[string]any) bool {
	s, _ := st["status"].(string)
	return s == "completed" || s == "failed" || s == "cancelled"
}

// Eventually polls cond until it holds, and fails t when it does not within timeout.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", timeout, what)
}

// QuadraticCSV is n rows of y = 3x² + 1 with a nuisance column z.
func QuadraticCSV(n int) []byte {
	var b strings.Builder
	b.WriteString("x,z,y\n")
	for i := 0; i < n; i++ {
		x := float64(i%41)/8 + 0.1
		fmt.Fprintf(&b, "%g,%g,%g\n", x, math.Sin(float64(i)*1.7), 3*x*x+1)
	}
	return []byte(b.String())
}
