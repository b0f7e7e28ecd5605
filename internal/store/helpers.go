package store

import "time"

// Page sizes follow the API: default 20, at most 100.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

func clampLimit(limit int) int {
	switch {
	case limit <= 0:
		return DefaultPageSize
	case limit > MaxPageSize:
		return MaxPageSize
	}
	return limit
}

// forUpdate locks the selected rows until the transaction ends on PostgreSQL. SQLite
// has no row locks and needs none: its single connection already serialises writers.
func (s *Store) forUpdate() string {
	if s.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func truncated(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Millisecond)
	return &u
}
