package app

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
)

// `disco users disable NAME` disables the user and ends their sessions, `enable` lets them
// sign in again, `delete` removes them; an unknown name is an error that says so (issue 17).
func TestUsersDisableEnableDelete(t *testing.T) {
	ctx := context.Background()
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "disco.db")
	st, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.CreateUser(ctx, "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa", "ada", "correct horse"); err != nil {
		t.Fatal(err)
	}
	signedIn := time.Now().Add(-time.Minute)
	run := func(args ...string) (string, error) {
		cmd := newUsersCommand()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SetArgs(append(args, "--store-dsn", dsn))
		err := cmd.ExecuteContext(ctx)
		return out.String(), err
	}
	user := func() store.User {
		t.Helper()
		u, err := st.UserByUsername(ctx, "ada")
		if err != nil {
			t.Fatal(err)
		}
		return u
	}

	if out, err := run("disable", "ada"); err != nil || !strings.Contains(out, "disabled ada") {
		t.Fatalf("disable: %q, %v", out, err)
	}
	if u := user(); !u.Disabled() || u.SessionAllowed(signedIn) {
		t.Fatalf("after disable: %+v", u)
	}
	if out, err := run("enable", "ada"); err != nil || !strings.Contains(out, "enabled ada") {
		t.Fatalf("enable: %q, %v", out, err)
	}
	if u := user(); u.Disabled() || u.SessionAllowed(signedIn) {
		t.Fatalf("after enable: %+v (sessions ended by disabling stay ended)", u)
	}
	if _, err := run("delete", "ada"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.UserByUsername(ctx, "ada"); err == nil {
		t.Fatal("the user was not deleted")
	}
	for _, verb := range []string{"disable", "enable", "delete"} {
		if _, err := run(verb, "ada"); err == nil || !strings.Contains(err.Error(), `no user "ada"`) {
			t.Errorf("%s an unknown user: %v", verb, err)
		}
	}
	if _, err := run("disable"); err == nil {
		t.Error("disable without a name accepted")
	}
}
