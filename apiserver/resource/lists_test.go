package resource

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/discolab/disco/internal/store"
)

// TestStoreAllReadsEveryPage: StoreAll follows the store's pages to the end, each after
// the last id of the one before, and keeps what keep accepts.
func TestStoreAllReadsEveryPage(t *testing.T) {
	var rows []string
	for i := range 2*store.MaxPageSize + 7 {
		rows = append(rows, fmt.Sprintf("id%04d", i))
	}
	var calls []string
	list := func(_ context.Context, tenantID string, limit int, after string) ([]string, error) {
		if tenantID != "ten_a" {
			return nil, errors.New("wrong tenant")
		}
		calls = append(calls, after)
		var page []string
		for _, r := range rows {
			if r > after && len(page) < limit {
				page = append(page, r)
			}
		}
		return page, nil
	}
	id := func(s string) string { return s }
	got, err := StoreAll(context.Background(), "ten_a", list, id, func(s string) bool { return s[len(s)-1] == '3' })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 21 || got[0] != "id0003" || got[20] != "id0203" {
		t.Fatalf("kept %d rows %v", len(got), got)
	}
	if len(calls) != 3 || calls[0] != "" || calls[1] != "id0099" || calls[2] != "id0199" {
		t.Fatalf("pages read after %q", calls)
	}
	if _, err := StoreAll(context.Background(), "ten_b", list, id, func(string) bool { return true }); err == nil {
		t.Fatal("the store's error was lost")
	}
}
