package store

import (
	"context"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// A sign-in as an unknown user compares the password against a hash of the same cost as
// real users' hashes, so it takes as long as a sign-in as an existing user (issue 17).
// The comparisons are counted instead of timed.
func TestVerifyPasswordComparesForUnknownUsers(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, "sqlite://"+filepath.Join(t.TempDir(), "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	u, err := st.CreateUser(ctx, "ten_a", "ada", "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	realCost, err := bcrypt.Cost([]byte(u.PasswordHash))
	if err != nil {
		t.Fatal(err)
	}
	var costs []int
	compareHash = func(hash, password []byte) error {
		c, err := bcrypt.Cost(hash)
		if err != nil {
			t.Fatal(err)
		}
		costs = append(costs, c)
		return bcrypt.CompareHashAndPassword(hash, password)
	}
	defer func() { compareHash = bcrypt.CompareHashAndPassword }()

	for _, tc := range []struct {
		username, password string
		ok                 bool
	}{{"ada", "correct horse", true}, {"ada", "wrong", false}, {"nobody", "correct horse", false}, {"nobody", "", false}} {
		costs = nil
		got, ok, err := st.VerifyPassword(ctx, tc.username, tc.password)
		if err != nil || ok != tc.ok || (ok && got.ID != u.ID) {
			t.Fatalf("VerifyPassword(%q, %q) = %+v, %v, %v", tc.username, tc.password, got, ok, err)
		}
		if len(costs) != 1 || costs[0] != realCost {
			t.Fatalf("VerifyPassword(%q): bcrypt comparisons at costs %v, want one at %d", tc.username, costs, realCost)
		}
	}
}
