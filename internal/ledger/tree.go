package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/discolab/disco/internal/store"
)

var errBadHash = errors.New("ledger: malformed entry hash")

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// treeReader reads a project's stored tree hashes for tlog.
type treeReader struct {
	ctx       context.Context
	q         querier
	st        *store.Store
	projectID string
}

// ReadHashes implements tlog.HashReader: the hashes at indexes, in that order.
func (r treeReader) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	if len(indexes) == 0 {
		return nil, nil
	}
	found := make(map[int64]tlog.Hash, len(indexes))
	const chunk = 500 // stay far below any bind-parameter limit
	for start := 0; start < len(indexes); start += chunk {
		part := indexes[start:min(start+chunk, len(indexes))]
		args := make([]any, 0, len(part)+1)
		args = append(args, r.projectID)
		for _, idx := range part {
			args = append(args, idx)
		}
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ")
		rows, err := r.q.QueryContext(r.ctx, r.st.Rebind(`SELECT idx, hash FROM ledger_tree_hashes WHERE project_id = ? AND idx IN (`+marks+`)`), args...)
		if err != nil {
			return nil, fmt.Errorf("ledger: read tree hashes: %w", err)
		}
		for rows.Next() {
			var (
				idx int64
				b   []byte
			)
			if err := rows.Scan(&idx, &b); err != nil {
				rows.Close()
				return nil, err
			}
			if len(b) != tlog.HashSize {
				rows.Close()
				return nil, fmt.Errorf("%w: tree hash %d of project %s has %d bytes", ErrIntegrity, idx, r.projectID, len(b))
			}
			found[idx] = tlog.Hash(b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		h, ok := found[idx]
		if !ok {
			return nil, fmt.Errorf("%w: tree hash %d of project %s is missing", ErrIntegrity, idx, r.projectID)
		}
		out[i] = h
	}
	return out, nil
}

// memoryTree is a tlog tree built in memory, for recomputing a root from entries.
type memoryTree []tlog.Hash

func (m *memoryTree) add(n int64, leafData []byte) error {
	hashes, err := tlog.StoredHashes(n, leafData, m)
	if err != nil {
		return err
	}
	*m = append(*m, hashes...)
	return nil
}

func (m *memoryTree) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		if idx < 0 || idx >= int64(len(*m)) {
			return nil, fmt.Errorf("ledger: tree hash %d not computed", idx)
		}
		out[i] = (*m)[idx]
	}
	return out, nil
}
