package users

import (
	"time"

	"github.com/discolab/disco/internal/store"
)

// User is a person of the tenant who signs in through the OAuth authorization step
// (`disco users` creates them). The password hash never leaves the store.
type User struct {
	ID        string    `json:"id" example:"usr_abcdefghijklmnopqrstuvwxyz"`
	Username  string    `json:"username"`
	Status    string    `json:"status" enum:"active,disabled" doc:"A disabled user cannot sign in, and none of their sessions work."`
	CreatedAt time.Time `json:"created_at"`
	// DisabledAt is when the user was disabled; absent while active.
	DisabledAt *time.Time `json:"disabled_at,omitempty" doc:"When the user was disabled; absent while active."`
	// SessionsRevokedAt ends every session signed in before it.
	SessionsRevokedAt *time.Time `json:"sessions_revoked_at,omitempty" doc:"Sessions signed in before this time no longer work."`
}

func utcOpt(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// userOf is the wire form of u.
func userOf(u store.User) User {
	status := "active"
	if u.Disabled() {
		status = "disabled"
	}
	return User{
		ID: u.ID, Username: u.Username, Status: status, CreatedAt: u.CreatedAt.UTC(),
		DisabledAt: utcOpt(u.DisabledAt), SessionsRevokedAt: utcOpt(u.SessionsRevokedAt),
	}
}
