package e2e

import (
	"database/sql"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

// TestTamperedLedger rewrites one ledger row behind the service's back (dropping the
// append-only trigger, as an attacker with database access could) and checks that the
// facade answers verification and reads of the damaged entry with 500 ledger_integrity_error.
func TestTamperedLedger(t *testing.T) {
	dir := t.TempDir()
	p := startDev(t, dir, freeAddr(t))
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}

	pid := a.must(201, "POST", "/projects", map[string]any{"name": "tamper",
		"settings": map[string]any{"governance": map[string]any{"truth_dial_threshold": 0.99}}})["id"].(string)
	cid := a.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "c", "budget": map[string]any{"compute_units": 10000, "max_runs": 5}})["id"].(string)
	did := a.readyDataset(pid, "q", quadraticCSV(120))
	rid := a.must(201, "POST", "/projects/"+pid+"/campaigns/"+cid+"/runs", map[string]any{"mode": "symbolic", "dataset_id": did,
		"parameters": map[string]any{"target_variables": []string{"y"}}})["id"].(string)
	if st := a.runEnded("/projects/"+pid+"/campaigns/"+cid+"/runs/"+rid, 180e9); st["status"] != "completed" {
		t.Fatalf("run ended %v", st)
	}
	if v := a.must(200, "GET", "/projects/"+pid+"/ledger/verify", nil); v["valid"] != true {
		t.Fatalf("ledger before tampering: %v", v)
	}
	entries := a.must(200, "GET", "/projects/"+pid+"/ledger?limit=100&order=asc", nil)["data"].([]any)
	victim := entries[0].(map[string]any)["id"].(string)

	db, err := sql.Open("sqlite", filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE ledger_entries SET details = '{"claim_type":"law","truth_dial_score":1}' WHERE id = ?`, victim); err == nil {
		t.Fatal("the append-only trigger let an UPDATE through")
	}
	for _, stmt := range []string{
		`PRAGMA busy_timeout = 5000`,
		`DROP TRIGGER ledger_entries_no_update`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if _, err := db.Exec(`UPDATE ledger_entries SET details = '{"claim_type":"law","truth_dial_score":1}' WHERE id = ?`, victim); err != nil {
		t.Fatal(err)
	}

	for _, path := range []string{"/projects/" + pid + "/ledger/verify", "/projects/" + pid + "/ledger/" + victim} {
		code, out := a.do("GET", path, nil)
		e, _ := out["error"].(map[string]any)
		if code != 500 || e["code"] != "ledger_integrity_error" {
			t.Errorf("GET %s after tampering = %d %v", path, code, out)
		}
	}
}
