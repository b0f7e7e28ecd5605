package apiserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/discolab/disco/internal/store"
)

// The facade keeps a few secrets of its own in the store's database, in the table
// apiserver_settings (created by the store's migrations, 0005_facade_tables): the cursor
// signing key must be the same on every replica and survive restarts, or cursors handed
// out earlier would stop working.

// setting returns the named secret, creating it with 32 random bytes on first use.
// Concurrent first uses agree: the insert does nothing when another replica won.
func setting(ctx context.Context, st *store.Store, name string) ([]byte, error) {
	db := st.DB()
	var fresh [32]byte
	if _, err := rand.Read(fresh[:]); err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, st.Rebind(`INSERT INTO apiserver_settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING`),
		name, hex.EncodeToString(fresh[:])); err != nil {
		return nil, fmt.Errorf("apiserver: store setting %s: %w", name, err)
	}
	var v string
	if err := db.QueryRowContext(ctx, st.Rebind(`SELECT value FROM apiserver_settings WHERE name = ?`), name).Scan(&v); err != nil {
		return nil, fmt.Errorf("apiserver: read setting %s: %w", name, err)
	}
	return hex.DecodeString(v)
}

func cursorKey(ctx context.Context, st *store.Store) ([]byte, error) {
	return setting(ctx, st, "cursor_hmac_key")
}
