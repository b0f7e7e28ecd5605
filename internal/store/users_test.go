package store_test

import (
	"context"
	"errors"
	"testing"

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
		if !byID.CheckPassword("correct horse") || byID.CheckPassword("wrong") {
			t.Error("CheckPassword does not tell the right password from a wrong one")
		}
		if _, err := st.CreateUser(ctx, "ten_b", "ada", "x"); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate username: err = %v, want ErrConflict", err)
		}
		if _, err := st.UserByUsername(ctx, "grace"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown username: err = %v, want ErrNotFound", err)
		}
	})
}
