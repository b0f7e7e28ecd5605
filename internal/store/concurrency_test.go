package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// rollRace rolls one key from several stores at once: exactly one roll may win.
func rollRace(t *testing.T, stores []*store.Store) {
	ctx := context.Background()
	k, _, err := stores[0].CreateAPIKey(ctx, store.NewAPIKey{TenantID: "ten_a", Name: "race"})
	if err != nil {
		t.Fatal(err)
	}
	const racers = 6
	var (
		wg              sync.WaitGroup
		mu              sync.Mutex
		wins, conflicts int
		unexpected      []error
	)
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := stores[i%len(stores)].RollAPIKey(ctx, "ten_a", k.ID, "usr_1", time.Hour)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, store.ErrConflict):
				conflicts++
			default:
				unexpected = append(unexpected, err)
			}
		}()
	}
	wg.Wait()
	if len(unexpected) > 0 || wins != 1 || conflicts != racers-1 {
		t.Fatalf("%d wins, %d conflicts, errors %v; want exactly one roll", wins, conflicts, unexpected)
	}
	keys, _ := stores[0].ListAPIKeys(ctx, "ten_a", 100, "")
	if len(keys) != 2 {
		t.Fatalf("%d keys after the race, want the original and one replacement", len(keys))
	}
}

func TestConcurrentRollsOnOneStore(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) { rollRace(t, []*store.Store{st}) })
}

// Two processes on one SQLite file (manager and apiserver run separately).
func TestConcurrentRollsAcrossSQLiteProcesses(t *testing.T) {
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "disco.db")
	var stores []*store.Store
	for range 2 {
		st, err := store.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
	}
	rollRace(t, stores)
}
