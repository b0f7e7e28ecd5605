package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// The REST facade manages a tenant's users by id (issue 15): lists page through the
// tenant's users only, and another tenant's user is not found for any change.
func TestTenantUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		st.SetClock(func() time.Time { now = now.Add(time.Second); return now })
		var mine []string
		for i := range 5 {
			u, err := st.CreateUser(ctx, "ten_a", fmt.Sprintf("a%d", i), "pw")
			if err != nil {
				t.Fatal(err)
			}
			mine = append(mine, u.ID)
		}
		other, err := st.CreateUser(ctx, "ten_b", "b0", "pw")
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for after := ""; ; {
			page, err := st.ListUsers(ctx, "ten_a", 2, after)
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range page {
				listed = append(listed, u.ID)
				if u.TenantID != "ten_a" {
					t.Errorf("ListUsers(ten_a) returned %s of %s", u.ID, u.TenantID)
				}
			}
			if len(page) < 2 {
				break
			}
			after = page[len(page)-1].ID
		}
		if fmt.Sprint(listed) != fmt.Sprint(mine) {
			t.Fatalf("pages listed %v, want %v in creation order", listed, mine)
		}

		if _, err := st.TenantUser(ctx, "ten_a", other.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another tenant's user: %v, want ErrNotFound", err)
		}
		for name, f := range map[string]func(context.Context, string, string) error{
			"disable": st.DisableTenantUser, "enable": st.EnableTenantUser, "delete": st.DeleteTenantUser,
		} {
			if err := f(ctx, "ten_a", other.ID); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s another tenant's user: %v, want ErrNotFound", name, err)
			}
		}
		if u, _ := st.UserByID(ctx, other.ID); u.Disabled() {
			t.Fatal("a change across tenants disabled the user")
		}

		signedIn := now
		if err := st.DisableTenantUser(ctx, "ten_a", mine[0]); err != nil {
			t.Fatal(err)
		}
		u, err := st.TenantUser(ctx, "ten_a", mine[0])
		if err != nil || !u.Disabled() || u.SessionAllowed(signedIn) {
			t.Fatalf("disabled user %+v (%v): disabled and their sessions ended", u, err)
		}
		if err := st.EnableTenantUser(ctx, "ten_a", mine[0]); err != nil {
			t.Fatal(err)
		}
		if u, _ = st.TenantUser(ctx, "ten_a", mine[0]); u.Disabled() || u.SessionAllowed(signedIn) {
			t.Fatalf("enabled user %+v: enabled, the old session still ended", u)
		}
		if err := st.DeleteTenantUser(ctx, "ten_a", mine[0]); err != nil {
			t.Fatal(err)
		}
		if _, err := st.TenantUser(ctx, "ten_a", mine[0]); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted user: %v", err)
		}
	})
}
