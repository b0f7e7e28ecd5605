package ledger

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/discolab/disco/internal/store"
)

// ListQuery selects a page of a project's entries.
type ListQuery struct {
	ClaimID string // only entries about this claim; "" for all
	Desc    bool   // newest first; default oldest first (tree_index ascending)
	After   *int64 // tree_index of the previous page's last entry; nil for the first page
	Limit   int    // default 20, at most 100
}

const entryColumns = `id, tenant_id, project_id, tree_index, event_type, claim_id, run_id, details, actor, ts, prev_hash, hash`

// storedEntry is an entry with the exact details text its hash covers.
type storedEntry struct {
	Entry
	details []byte
}

// Get returns one entry of the tenant's project. It checks the entry against its hash,
// its neighbours in the chain and its leaf in the Merkle tree, and returns an error
// wrapping ErrIntegrity if any check fails.
func (l *Ledger) Get(ctx context.Context, tenantID, projectID, id string) (Entry, error) {
	rows, err := l.st.DB().QueryContext(ctx, l.st.Rebind(`SELECT `+entryColumns+` FROM ledger_entries
		WHERE tenant_id = ? AND project_id = ? AND id = ?`), tenantID, projectID, id)
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: get: %w", err)
	}
	entries, err := scanEntries(rows)
	if err != nil {
		return Entry{}, err
	}
	if len(entries) == 0 {
		return Entry{}, ErrNotFound
	}
	if err := l.check(ctx, projectID, entries); err != nil {
		return Entry{}, err
	}
	return entries[0].Entry, nil
}

// List returns a page of the tenant's project entries ordered by tree_index, every one
// checked as in Get; an error wrapping ErrIntegrity means at least one failed.
func (l *Ledger) List(ctx context.Context, tenantID, projectID string, q ListQuery) ([]Entry, error) {
	query := `SELECT ` + entryColumns + ` FROM ledger_entries WHERE tenant_id = ? AND project_id = ?`
	args := []any{tenantID, projectID}
	if q.ClaimID != "" {
		query += ` AND claim_id = ?`
		args = append(args, q.ClaimID)
	}
	order := "ASC"
	if q.Desc {
		order = "DESC"
	}
	if q.After != nil {
		if q.Desc {
			query += ` AND tree_index < ?`
		} else {
			query += ` AND tree_index > ?`
		}
		args = append(args, *q.After)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = store.DefaultPageSize
	}
	limit = min(limit, store.MaxPageSize)
	query += ` ORDER BY tree_index ` + order + ` LIMIT ?`
	args = append(args, limit)
	rows, err := l.st.DB().QueryContext(ctx, l.st.Rebind(query), args...)
	if err != nil {
		return nil, fmt.Errorf("ledger: list: %w", err)
	}
	entries, err := scanEntries(rows)
	if err != nil {
		return nil, err
	}
	if err := l.check(ctx, projectID, entries); err != nil {
		return nil, err
	}
	out := make([]Entry, len(entries))
	for i, e := range entries {
		out[i] = e.Entry
	}
	return out, nil
}

// Count returns how many entries the tenant's project has, only those about claimID
// when it is not "".
func (l *Ledger) Count(ctx context.Context, tenantID, projectID, claimID string) (int, error) {
	query := `SELECT COUNT(*) FROM ledger_entries WHERE tenant_id = ? AND project_id = ?`
	args := []any{tenantID, projectID}
	if claimID != "" {
		query += ` AND claim_id = ?`
		args = append(args, claimID)
	}
	var n int
	if err := l.st.DB().QueryRowContext(ctx, l.st.Rebind(query), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("ledger: count: %w", err)
	}
	return n, nil
}

func scanEntries(rows *sql.Rows) ([]storedEntry, error) {
	defer rows.Close()
	var out []storedEntry
	for rows.Next() {
		var (
			e       storedEntry
			details string
			ts      int64
		)
		if err := rows.Scan(&e.ID, &e.TenantID, &e.ProjectID, &e.TreeIndex, &e.EventType, &e.ClaimID, &e.RunID,
			&details, &e.Actor, &ts, &e.PrevHash, &e.Hash); err != nil {
			return nil, fmt.Errorf("ledger: read entry: %w", err)
		}
		e.details = []byte(details)
		e.Timestamp = timestampOf(ts)
		out = append(out, e)
	}
	return out, rows.Err()
}

// selfCheck verifies that e's stored hash is the hash of its content and decodes its
// details.
func (e *storedEntry) selfCheck() string {
	sum := entryHash(e.Entry, e.details)
	if hex.EncodeToString(sum[:]) != e.Hash {
		return "entry content does not match its hash"
	}
	if err := json.Unmarshal(e.details, &e.Details); err != nil {
		return "details are not valid JSON"
	}
	return ""
}

// check runs every per-entry check on entries of one project: own hash, link to the
// predecessor and successor, presence in the head's count, and Merkle leaf.
func (l *Ledger) check(ctx context.Context, projectID string, entries []storedEntry) error {
	if len(entries) == 0 {
		return nil
	}
	fail := func(idx int64, reason string) error {
		return &IntegrityError{ProjectID: projectID, Index: idx, Reason: reason}
	}
	for i := range entries {
		if reason := entries[i].selfCheck(); reason != "" {
			return fail(entries[i].TreeIndex, reason)
		}
	}

	var size int64
	err := l.st.DB().QueryRowContext(ctx, l.st.Rebind(`SELECT size FROM ledger_heads WHERE project_id = ?`), projectID).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return fail(entries[0].TreeIndex, "project has entries but no head")
	}
	if err != nil {
		return fmt.Errorf("ledger: read head: %w", err)
	}

	type link struct{ hash, prev string }
	chain := map[int64]link{}
	var need []any
	for _, e := range entries {
		chain[e.TreeIndex] = link{e.Hash, e.PrevHash}
	}
	for _, e := range entries {
		for _, n := range []int64{e.TreeIndex - 1, e.TreeIndex + 1} {
			if _, ok := chain[n]; !ok && n >= 0 && n < size {
				chain[n] = link{} // placeholder so each neighbour is asked for once
				need = append(need, n)
			}
		}
	}
	if len(need) > 0 {
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(need)), ", ")
		rows, err := l.st.DB().QueryContext(ctx, l.st.Rebind(`SELECT tree_index, hash, prev_hash FROM ledger_entries
			WHERE project_id = ? AND tree_index IN (`+marks+`)`), append([]any{projectID}, need...)...)
		if err != nil {
			return fmt.Errorf("ledger: read neighbours: %w", err)
		}
		for rows.Next() {
			var (
				idx int64
				lk  link
			)
			if err := rows.Scan(&idx, &lk.hash, &lk.prev); err != nil {
				rows.Close()
				return err
			}
			chain[idx] = lk
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}

	reader := treeReader{ctx: ctx, q: l.st.DB(), st: l.st, projectID: projectID}
	leafIndexes := make([]int64, len(entries))
	for i, e := range entries {
		leafIndexes[i] = tlog.StoredHashIndex(0, e.TreeIndex)
	}
	leaves, err := reader.ReadHashes(leafIndexes)
	if err != nil {
		var ie *IntegrityError
		if errors.As(err, &ie) || errors.Is(err, ErrIntegrity) {
			return fail(entries[0].TreeIndex, "merkle leaf missing or malformed")
		}
		return err
	}

	for i, e := range entries {
		idx := e.TreeIndex
		if idx >= size {
			return fail(idx, "entry lies beyond the ledger head")
		}
		if idx == 0 && e.PrevHash != GenesisHash {
			return fail(idx, "first entry does not start from the genesis hash")
		}
		if idx > 0 {
			if prev := chain[idx-1]; prev.hash == "" {
				return fail(idx-1, "entry missing from the chain")
			} else if prev.hash != e.PrevHash {
				return fail(idx, "prev_hash does not match the preceding entry")
			}
		}
		if idx+1 < size {
			if next := chain[idx+1]; next.hash == "" {
				return fail(idx+1, "entry missing from the chain")
			} else if next.prev != e.Hash {
				return fail(idx+1, "prev_hash does not match the preceding entry")
			}
		}
		leaf, err := LeafHash(e.Hash)
		if err != nil || leaf != leaves[i] {
			return fail(idx, "entry is not the stored merkle leaf")
		}
	}
	return nil
}
