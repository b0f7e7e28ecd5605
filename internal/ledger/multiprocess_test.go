package ledger_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// Two processes (here: two stores on one SQLite file, as when manager and apiserver
// run separately against ./.disco/disco.db) appending at once must neither fail with
// SQLITE_BUSY nor fork the chain.
func TestSQLiteTwoWritersShareOneChain(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "disco.db")
	key, err := ledger.LoadOrCreateKey(filepath.Join(t.TempDir(), "ledger.key"))
	if err != nil {
		t.Fatal(err)
	}
	var ledgers []*ledger.Ledger
	for range 2 {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		l, err := ledger.New(st, key.Signer)
		if err != nil {
			t.Fatal(err)
		}
		ledgers = append(ledgers, l)
	}
	const each = 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, l := range ledgers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := l.Append(ctx, ledger.Entry{TenantID: "ten_a", ProjectID: "proj_1", EventType: ledger.PolicyEvaluated}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	v, err := ledgers[0].Verify(ctx, "ten_a", "proj_1")
	if err != nil || !v.Valid || v.Size != 2*each {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
}
