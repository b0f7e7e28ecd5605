package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// TestAbuse is the bounded, loopback-only abuse suite of issue 17 against a real `disco dev`:
// what an attacker or a careless client tries, each with the answer that must come back.
func TestAbuse(t *testing.T) {
	p := startDev(t, t.TempDir(), freeAddr(t))
	admin := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}
	u, _ := url.Parse(p.creds.BaseURL)
	host := u.Host
	pid := admin.must(201, "POST", "/projects", map[string]any{"name": "abused"})["id"].(string)

	// Slow clients are cut off, and waiting for them runs side by side.
	t.Run("slow clients", func(t *testing.T) {
		t.Run("headers that never end", func(t *testing.T) {
			t.Parallel()
			closedWithin(t, host, "GET /v1/projects HTTP/1.1\r\nHost: x\r\nX-Slow: ", 40*time.Second)
		})
		t.Run("a stalled body on the token endpoint, no credential needed", func(t *testing.T) {
			t.Parallel()
			status := stalledBody(t, host, "POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=", 60*time.Second)
			if status != 0 && status != http.StatusRequestTimeout && status != http.StatusBadRequest {
				t.Errorf("stalled token body answered %d", status)
			}
		})
		t.Run("a stalled body on MCP with a made-up bearer", func(t *testing.T) {
			t.Parallel()
			status := stalledBody(t, host, "POST /v1/mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nonsense\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", 60*time.Second)
			if status != 0 && status != http.StatusUnauthorized && status != http.StatusRequestTimeout {
				t.Errorf("stalled MCP body answered %d", status)
			}
		})
	})

	t.Run("MCP needs a credential", func(t *testing.T) {
		req, _ := http.NewRequest("POST", p.creds.BaseURL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if code, _ := admin.send(req); code != http.StatusUnauthorized {
			t.Errorf("initialize without a credential = %d", code)
		}
	})

	t.Run("oversized, wide and truncated uploads", func(t *testing.T) {
		// 513 MiB, made on the fly: refused with 413, not stored.
		if code := uploadStream(t, admin, pid, "huge", io.MultiReader(strings.NewReader("a,b\n"), io.LimitReader(zeros{}, 513<<20))); code != http.StatusRequestEntityTooLarge {
			t.Errorf("513 MiB upload = %d", code)
		}
		var wide strings.Builder
		for i := range 4097 {
			if i > 0 {
				wide.WriteByte(',')
			}
			fmt.Fprintf(&wide, "c%d", i)
		}
		wide.WriteString("\n")
		if code := uploadStream(t, admin, pid, "wide", strings.NewReader(wide.String())); code != http.StatusUnprocessableEntity {
			t.Errorf("4,097-column upload = %d", code)
		}
		// A body shorter than its Content-Length.
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"d.csv\"\r\n\r\nx,y\n1,2\n"
		fmt.Fprintf(conn, "POST /v1/projects/%s/datasets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n%s",
			pid, p.creds.APIKey, len(body)+500, body)
		if err := conn.(*net.TCPConn).CloseWrite(); err != nil {
			t.Fatal(err)
		}
		if err := conn.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("truncated upload = %d", resp.StatusCode)
		}
	})

	t.Run("names with NUL and bidi controls", func(t *testing.T) {
		for _, name := range []string{"a\x00b", "invoice\u202Egnp.exe"} {
			if code, out := admin.do("POST", "/projects", map[string]any{"name": name}); code != http.StatusBadRequest {
				t.Errorf("project named %q = %d %v", name, code, out)
			}
		}
	})

	t.Run("credential management cannot escalate", func(t *testing.T) {
		keys := admin.must(200, "GET", "/api-keys", nil)["data"].([]any)
		var adminKeyID string
		for _, k := range keys {
			if k := k.(map[string]any); strings.HasPrefix(p.creds.APIKey, k["prefix"].(string)) {
				adminKeyID = k["id"].(string)
			}
		}
		if adminKeyID == "" {
			t.Fatalf("the admin key is not listed: %v", keys)
		}
		weak := &api{t: t, base: p.creds.BaseURL, key: admin.must(201, "POST", "/api-keys", map[string]any{"name": "keys only", "scopes": []string{"api_keys:write"}})["key"].(string)}
		if code, out := weak.do("POST", "/api-keys/"+adminKeyID+"/roll", map[string]any{"grace_period_seconds": 0}); code != http.StatusNotFound {
			t.Errorf("a keys-only key rolls the admin key = %d %v", code, out)
		}
		if code, _ := weak.do("DELETE", "/api-keys/"+adminKeyID, nil); code != http.StatusNotFound {
			t.Errorf("a keys-only key revokes the admin key = %d", code)
		}
		if code, _ := weak.do("POST", "/api-keys", map[string]any{"name": "more", "scopes": []string{"projects:write"}}); code != http.StatusForbidden {
			t.Errorf("a keys-only key mints a projects:write key = %d", code)
		}
		if code, _ := weak.do("PATCH", "/projects/"+pid, map[string]any{"settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "publish"}}}); code != http.StatusForbidden {
			t.Errorf("a keys-only key changes governance = %d", code)
		}
		admin.must(200, "GET", "/projects", nil) // the admin key still works
	})

	t.Run("an idempotent response is not replayed to another principal", func(t *testing.T) {
		reader := &api{t: t, base: p.creds.BaseURL, key: admin.must(201, "POST", "/api-keys", map[string]any{"name": "reader", "scopes": []string{"projects:read"}})["key"].(string)}
		post := func(a *api) (int, map[string]any) {
			req, _ := http.NewRequest("POST", a.base+"/projects", strings.NewReader(`{"name":"once"}`))
			req.Header.Set("Authorization", "Bearer "+a.key)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "abuse-1")
			return a.send(req)
		}
		if code, _ := post(admin); code != http.StatusCreated {
			t.Fatalf("first create = %d", code)
		}
		if code, out := post(reader); code != http.StatusForbidden {
			t.Errorf("a read-only key replaying the admin's create = %d %v", code, out)
		}
	})

	t.Run("webhook registration checks the form, delivery checks the address", func(t *testing.T) {
		// disco dev allows loopback and private receivers (local development); the cloud
		// metadata address and credentials in the URL are refused everywhere.
		for _, u := range []string{"https://169.254.169.254/latest", "https://user:pw@example.com/hook", "ftp://example.com/hook"} {
			if code, out := admin.do("POST", "/webhooks", map[string]any{"url": u, "events": []string{"run.completed"}, "secret": "0123456789abcdef"}); code != http.StatusUnprocessableEntity && code != http.StatusBadRequest {
				t.Errorf("webhook to %s = %d %v", u, code, out)
			}
		}
		// No DNS on this machine is needed to register a public name.
		if code, out := admin.do("POST", "/webhooks", map[string]any{"url": "https://example.com/hook", "events": []string{"run.completed"}, "secret": "0123456789abcdef"}); code != http.StatusCreated {
			t.Errorf("webhook to example.com = %d %v", code, out)
		}
	})

	t.Run("an artifact key outside the run's prefix streams nothing", func(t *testing.T) {
		cid := admin.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "c", "budget": map[string]any{"compute_units": 10000, "max_runs": 5}})["id"].(string)
		did := admin.readyDataset(pid, "quadratic", quadraticCSV(120))
		rid := admin.must(201, "POST", "/projects/"+pid+"/campaigns/"+cid+"/runs", map[string]any{"mode": "symbolic", "dataset_id": did,
			"parameters": map[string]any{"target_variables": []string{"y"}}})["id"].(string)
		runPath := "/projects/" + pid + "/campaigns/" + cid + "/runs/" + rid
		admin.runEnded(runPath, 3*time.Minute)
		arts := admin.must(200, "GET", runPath+"/artifacts", nil)["data"].([]any)
		if len(arts) == 0 {
			t.Fatal("the run has no artifacts")
		}
		artID := arts[0].(map[string]any)["id"].(string)
		// A cluster admin points the artifact at the project's dataset blob.
		kc := kubeClient(t, p.creds.Kubeconfig)
		run := &discov1.Run{}
		if err := kc.Get(context.Background(), client.ObjectKey{Namespace: p.creds.Namespace, Name: ids.ToName(rid)}, run); err != nil {
			t.Fatal(err)
		}
		ds := &discov1.Dataset{}
		if err := kc.Get(context.Background(), client.ObjectKey{Namespace: p.creds.Namespace, Name: ids.ToName(did)}, ds); err != nil {
			t.Fatal(err)
		}
		arts2 := run.Status.DeepCopy().Artifacts
		for i := range arts2 {
			arts2[i].Key = ds.Spec.BlobKey
		}
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{"artifacts": arts2}})
		if err := kc.Status().Patch(context.Background(), run, client.RawPatch(types.MergePatchType, patch)); err != nil {
			t.Fatal(err)
		}
		eventually(t, 30*time.Second, "the artifact download refuses the foreign key", func() bool {
			req, _ := http.NewRequest("GET", p.creds.BaseURL+runPath+"/artifacts/"+artID+"/content", nil)
			req.Header.Set("Authorization", "Bearer "+p.creds.APIKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return false
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if bytes.Contains(body, []byte("x,y")) || bytes.Contains(body, []byte("y,x")) {
				t.Fatalf("the artifact download streamed the dataset: %d %.80q", resp.StatusCode, body)
			}
			return resp.StatusCode == http.StatusNotFound
		})
	})
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// uploadStream uploads a CSV read from r, streamed, and returns the status.
func uploadStream(t *testing.T, a *api, projectID, name string, r io.Reader) int {
	t.Helper()
	pr, pw := io.Pipe()
	w := multipart.NewWriter(pw)
	go func() {
		if err := w.WriteField("metadata", fmt.Sprintf(`{"name": %q, "format": "csv"}`, name)); err != nil {
			pw.CloseWithError(err)
			return
		}
		f, _ := w.CreateFormFile("file", name+".csv")
		if _, err := io.Copy(f, r); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(w.Close())
	}()
	req, _ := http.NewRequest("POST", a.base+"/projects/"+projectID+"/datasets", pr)
	req.Header.Set("Authorization", "Bearer "+a.key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("upload %s: %v", name, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body) // drained for reuse; only the status matters
	return resp.StatusCode
}

// stall opens a connection, sends a request prefix and sends nothing more; reads time out
// after bound.
func stall(t *testing.T, host, prefix string, bound time.Duration) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, prefix); err != nil {
		t.Fatal(err)
	}
	if err := conn.SetReadDeadline(time.Now().Add(bound)); err != nil {
		t.Fatal(err)
	}
	return conn
}

// closedWithin stalls after a request prefix; the server must close the connection before
// the bound.
func closedWithin(t *testing.T, host, prefix string, bound time.Duration) {
	t.Helper()
	_, err := io.Copy(io.Discard, stall(t, host, prefix, bound))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("the connection was still open after %s", bound)
	}
}

// stalledBody stalls after headers and part of a body; the server must answer or close
// before the bound. It returns the status of an answer, 0 when the server closed.
func stalledBody(t *testing.T, host, prefix string, bound time.Duration) int {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(stall(t, host, prefix, bound)), nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Errorf("no answer and no close after %s", bound)
		}
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}
