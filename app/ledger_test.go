package app

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/ledger/ledgertest"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// ledgerFacade makes a ledger (tenant ten_a) on a fresh store and key, and points
// DISCO_BASE_URL at a server of the four ledger routes the ledger commands call, answered
// straight from it (the facade's own handlers are tested in apiserver).
func ledgerFacade(t *testing.T) (*store.Store, *ledger.Key, *ledger.Ledger, string) {
	const tenant = "ten_a"
	st := storetest.OpenSQLite(t)
	dir := t.TempDir()
	key, err := ledger.LoadOrCreateKey(filepath.Join(dir, "ledger.key"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.New(st, key.Signer)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, v any, err error) {
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": "invalid_request", "message": err.Error()}})
			return
		}
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /v1/ledger/verifier-key", func(w http.ResponseWriter, r *http.Request) {
		reply(w, map[string]string{"verifier_key": l.VerifierKey()}, nil)
	})
	mux.HandleFunc("GET /v1/projects/{p}/ledger/checkpoint", func(w http.ResponseWriter, r *http.Request) {
		_, signed, err := l.Checkpoint(r.Context(), tenant, r.PathValue("p"))
		if err != nil {
			t.Error(err)
		}
		_, _ = w.Write([]byte(signed))
	})
	mux.HandleFunc("GET /v1/projects/{p}/ledger/verify", func(w http.ResponseWriter, r *http.Request) {
		v, err := l.Verify(r.Context(), tenant, r.PathValue("p"))
		reply(w, v, err)
	})
	mux.HandleFunc("GET /v1/projects/{p}/ledger/consistency", func(w http.ResponseWriter, r *http.Request) {
		oldSize, _ := strconv.ParseInt(r.URL.Query().Get("old_size"), 10, 64)
		newSize, _ := strconv.ParseInt(r.URL.Query().Get("new_size"), 10, 64)
		p, err := l.ConsistencyProof(r.Context(), tenant, r.PathValue("p"), oldSize, newSize)
		reply(w, p, err)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Setenv("DISCO_BASE_URL", srv.URL+"/v1")
	return st, key, l, dir
}

// disco runs the disco command line and returns its output and error.
func disco(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := NewRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func appendEntries(t *testing.T, l *ledger.Ledger, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := l.Append(context.Background(), ledger.Entry{
			TenantID: "ten_a", ProjectID: "proj_1", EventType: ledger.ClaimCreated, ClaimID: "clm_" + strconv.Itoa(i),
			Details: map[string]any{"claim_type": "law", "truth_dial_score": 0.5},
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLedgerVerifySince(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, st *store.Store, l *ledger.Ledger)
		fail   string // "" when the check must pass
	}{
		{"legitimate append passes", func(t *testing.T, st *store.Store, l *ledger.Ledger) { appendEntries(t, l, 4) }, ""},
		{"nothing changed passes", func(t *testing.T, st *store.Store, l *ledger.Ledger) {}, ""},
		{"consistent rewrite is caught", func(t *testing.T, st *store.Store, l *ledger.Ledger) {
			err := ledgertest.Rewrite(context.Background(), st, "proj_1", 1, func(e *ledger.Entry) {
				e.Details["truth_dial_score"] = 0.99
			})
			if err != nil {
				t.Fatal(err)
			}
			appendEntries(t, l, 2)
		}, "the ledger was rewritten"},
		{"truncation is caught", func(t *testing.T, st *store.Store, l *ledger.Ledger) {
			if err := ledgertest.Truncate(context.Background(), st, "proj_1", 3); err != nil {
				t.Fatal(err)
			}
		}, "the ledger lost entries"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, key, l, dir := ledgerFacade(t)
			t.Setenv("DISCO_API_KEY", "disco_key_test")
			appendEntries(t, l, 5)

			kept := filepath.Join(dir, "kept.checkpoint")
			if out, err := disco(t, "ledger", "checkpoint", "proj_1", "-o", kept); err != nil || !strings.Contains(out, "5 entries") {
				t.Fatalf("ledger checkpoint: %v\n%s", err, out)
			}
			pinned := filepath.Join(dir, "ledger.vkey")
			if out, err := disco(t, "ledger", "verifier-key"); err != nil || strings.TrimSpace(out) != key.VerifierKey {
				t.Fatalf("ledger verifier-key = %q, %v; want %q", out, err, key.VerifierKey)
			} else if err := os.WriteFile(pinned, []byte(out), 0o600); err != nil {
				t.Fatal(err)
			}

			c.change(t, st, l)

			out, err := disco(t, "ledger", "verify", "--since", kept, "--key", "@"+pinned, "--update")
			if c.fail == "" {
				if err != nil || !strings.Contains(out, "OK: the ledger of proj_1 extends the kept checkpoint") {
					t.Fatalf("ledger verify --since: %v\n%s", err, out)
				}
				saved, _ := os.ReadFile(kept)
				cp, err := ledger.OpenCheckpoint(string(saved), key.Verifier)
				if size, _ := l.Count(context.Background(), "ten_a", "proj_1", ""); err != nil || cp.Size != int64(size) {
					t.Fatalf("--update kept %+v (%v), want the checkpoint of %d entries", cp, err, size)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.fail) || !strings.Contains(err.Error(), "does not extend the checkpoint in "+kept) {
				t.Fatalf("ledger verify --since = %v, want a failure saying %q\n%s", err, c.fail, out)
			}
			t.Logf("disco ledger verify --since:\n%sdisco: %v", out, err)
			// The service's own verification still calls the ledger valid: only the kept
			// checkpoint tells.
			if !strings.Contains(out, "service      verify: valid") || !strings.Contains(out, "consistency  FAILED") {
				t.Fatalf("output does not show what was checked:\n%s", out)
			}
			if saved, _ := os.ReadFile(kept); !strings.Contains(string(saved), "\n5\n") {
				t.Fatalf("a failed check replaced the kept checkpoint:\n%s", saved)
			}
		})
	}
}

func TestLedgerVerifySinceRefusesOtherKeys(t *testing.T) {
	_, _, l, dir := ledgerFacade(t)
	appendEntries(t, l, 2)
	kept := filepath.Join(dir, "kept")
	if _, err := disco(t, "ledger", "checkpoint", "proj_1", "-o", kept); err != nil {
		t.Fatal(err)
	}
	_, other, err := note.GenerateKey(nil, ledger.KeyName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := disco(t, "ledger", "verify", "--since", kept, "--key", other); err == nil || !strings.Contains(err.Error(), "no valid signature by "+ledger.KeyName) {
		t.Fatalf("a checkpoint checked with another key: %v", err)
	}
	if _, err := disco(t, "ledger", "checkpoint", "proj_1", "--key", other); err == nil || !strings.Contains(err.Error(), "no valid signature") {
		t.Fatalf("a checkpoint fetched with another key: %v", err)
	}
	if _, err := disco(t, "ledger", "verify", "--since", kept, "--project", "proj_2"); err == nil || !strings.Contains(err.Error(), "not proj_2") {
		t.Fatalf("a checkpoint of another project: %v", err)
	}
	if err := os.WriteFile(kept, []byte("not a checkpoint\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := disco(t, "ledger", "verify", "--since", kept); err == nil || !strings.Contains(err.Error(), "the kept checkpoint") {
		t.Fatalf("a malformed kept checkpoint: %v", err)
	}
	if _, err := disco(t, "ledger", "verify"); err == nil || !strings.Contains(err.Error(), "since") {
		t.Fatalf("verify without --since: %v", err)
	}
}

// A refusal of the service reaches the user with the envelope's code and message, and a
// 401 without a credential says how to give one.
func TestLedgerCommandsReportTheServiceError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error": {"code": "unauthenticated", "message": "this operation needs a credential", "status": 401}}`))
	}))
	t.Cleanup(srv.Close)
	t.Setenv("DISCO_BASE_URL", srv.URL+"/v1")
	t.Setenv("DISCO_API_KEY", "")
	_, err := disco(t, "ledger", "verifier-key")
	if err == nil || !strings.Contains(err.Error(), "401 unauthenticated: this operation needs a credential") ||
		!strings.Contains(err.Error(), "set DISCO_API_KEY") {
		t.Fatalf("verifier-key against a refusing service: %v", err)
	}
	t.Setenv("DISCO_API_KEY", "disco_key_test")
	if _, err := disco(t, "ledger", "verifier-key"); err == nil || strings.Contains(err.Error(), "set DISCO_API_KEY") {
		t.Fatalf("with a credential the hint is not given: %v", err)
	}
}

// verify --since checks the signature of the service's current checkpoint too, not only
// the kept one's: a service answering its verification with a checkpoint signed by
// another key fails, however the proof looks.
func TestLedgerVerifySinceChecksTheServiceSignature(t *testing.T) {
	st, key, l, dir := ledgerFacade(t)
	appendEntries(t, l, 3)
	kept := filepath.Join(dir, "kept")
	if _, err := disco(t, "ledger", "checkpoint", "proj_1", "-o", kept, "--key", key.VerifierKey); err != nil {
		t.Fatal(err)
	}
	// The same ledger, signed by a key that is not the service's.
	other, err := ledgertest.Appender(st)
	if err != nil {
		t.Fatal(err)
	}
	appendEntries(t, other, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/projects/{p}/ledger/verify", func(w http.ResponseWriter, r *http.Request) {
		v, err := other.Verify(r.Context(), "ten_a", r.PathValue("p"))
		if err != nil {
			t.Error(err)
		}
		_ = json.NewEncoder(w).Encode(v)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Setenv("DISCO_BASE_URL", srv.URL+"/v1")
	out, err := disco(t, "ledger", "verify", "--since", kept, "--key", key.VerifierKey)
	if err == nil || !strings.Contains(err.Error(), "the service's checkpoint") || !strings.Contains(err.Error(), "no valid signature by "+ledger.KeyName) {
		t.Fatalf("a service checkpoint signed by another key: %v\n%s", err, out)
	}
}
