package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

func TestUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		u, err := st.CreateUser(ctx, "ten_a", "ada", "correct horse")
		if err != nil {
			t.Fatal(err)
		}
		if !ids.Valid(ids.User, u.ID) {
			t.Errorf("user id %q is not a usr_ id", u.ID)
		}
		if u.PasswordHash == "correct horse" {
			t.Fatal("password stored in plaintext")
		}
		byName, err := st.UserByUsername(ctx, "ada")
		if err != nil || byName.ID != u.ID || byName.TenantID != "ten_a" {
			t.Fatalf("UserByUsername = %+v, %v", byName, err)
		}
		byID, err := st.UserByID(ctx, u.ID)
		if err != nil || byID.Username != "ada" || !byID.CreatedAt.Equal(u.CreatedAt) {
			t.Fatalf("UserByID = %+v, %v", byID, err)
		}
		right, rightOK, err := st.VerifyPassword(ctx, "ada", "correct horse")
		_, wrongOK, werr := st.VerifyPassword(ctx, "ada", "wrong")
		if err != nil || werr != nil || !rightOK || right.ID != u.ID || wrongOK {
			t.Error("VerifyPassword does not tell the right password from a wrong one")
		}
		if _, err := st.CreateUser(ctx, "ten_b", "ada", "x"); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate username: err = %v, want ErrConflict", err)
		}
		if _, err := st.UserByUsername(ctx, "grace"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown username: err = %v, want ErrNotFound", err)
		}
	})
}

// Disabling a user ends the sessions they signed in to before; enabling lets them sign in
// again without reviving those; deleting removes them (issue 17).
func TestUserDisableEnableDelete(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		st.SetClock(func() time.Time { return now })
		if _, err := st.CreateUser(ctx, "ten_a", "ada", "correct horse"); err != nil {
			t.Fatal(err)
		}
		signedIn := now.Add(-time.Hour)
		if u, _ := st.UserByUsername(ctx, "ada"); u.Disabled() || !u.SessionAllowed(signedIn) {
			t.Fatalf("new user %+v", u)
		}
		if err := st.DisableUser(ctx, "ada"); err != nil {
			t.Fatal(err)
		}
		u, err := st.UserByUsername(ctx, "ada")
		if err != nil || !u.Disabled() || u.SessionAllowed(signedIn) || u.SessionAllowed(now.Add(time.Hour)) {
			t.Fatalf("disabled user %+v, %v", u, err)
		}
		now = now.Add(time.Minute)
		if err := st.EnableUser(ctx, "ada"); err != nil {
			t.Fatal(err)
		}
		u, _ = st.UserByUsername(ctx, "ada")
		if u.Disabled() || u.SessionAllowed(signedIn) || !u.SessionAllowed(now) {
			t.Fatalf("enabled user %+v: the old session must stay ended, a new one must work", u)
		}
		if err := st.DeleteUser(ctx, " ada "); err != nil {
			t.Fatal(err)
		}
		if _, err := st.UserByUsername(ctx, "ada"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted user: %v", err)
		}
		for name, f := range map[string]func(context.Context, string) error{"disable": st.DisableUser, "enable": st.EnableUser, "delete": st.DeleteUser} {
			if err := f(ctx, "ada"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s an unknown user: %v, want ErrNotFound", name, err)
			}
		}
	})
}
