package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/discolab/disco/internal/ids"
)

// User is a person who signs in through the OAuth authorization step.
type User struct {
	ID           string
	TenantID     string
	Username     string
	PasswordHash string
	CreatedAt    time.Time
	// DisabledAt is set while the user may not sign in; their sessions are refused too.
	DisabledAt *time.Time
	// SessionsRevokedAt ends every session that signed in before it.
	SessionsRevokedAt *time.Time
}

// passwordCost is the bcrypt cost of stored passwords.
const passwordCost = bcrypt.DefaultCost

// CreateUser stores a new user with a bcrypt hash of password. A taken username
// gives ErrConflict.
func (s *Store) CreateUser(ctx context.Context, tenantID, username, password string) (User, error) {
	username = strings.TrimSpace(username)
	if tenantID == "" || username == "" || password == "" {
		return User{}, errors.New("store: tenant, username and password are required")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), passwordCost)
	if err != nil {
		return User{}, fmt.Errorf("store: hash password: %w", err)
	}
	u := User{ID: ids.New(ids.User), TenantID: tenantID, Username: username, PasswordHash: string(hash), CreatedAt: s.Now()}
	_, err = s.db.ExecContext(ctx, s.Rebind(`INSERT INTO users (id, tenant_id, username, password_hash, created_at) VALUES (?, ?, ?, ?, ?)`),
		u.ID, u.TenantID, u.Username, u.PasswordHash, millis(u.CreatedAt))
	if isUniqueViolation(err) {
		return User{}, fmt.Errorf("%w: username %q is taken", ErrConflict, username)
	}
	if err != nil {
		return User{}, fmt.Errorf("store: create user: %w", err)
	}
	return u, nil
}

// UserByUsername returns the user with that username, or ErrNotFound.
func (s *Store) UserByUsername(ctx context.Context, username string) (User, error) {
	return s.userWhere(ctx, "username = ?", strings.TrimSpace(username))
}

// UserByID returns the user with that id, or ErrNotFound.
func (s *Store) UserByID(ctx context.Context, id string) (User, error) {
	return s.userWhere(ctx, "id = ?", id)
}

// Disabled reports whether the user is disabled.
func (u User) Disabled() bool { return u.DisabledAt != nil }

// SessionAllowed reports whether a session that signed in at authTime still speaks for
// the user: the user is not disabled and their sessions were not revoked after it.
func (u User) SessionAllowed(authTime time.Time) bool {
	return u.DisabledAt == nil && (u.SessionsRevokedAt == nil || !authTime.Before(*u.SessionsRevokedAt))
}

// dummyPasswordHash is compared against when a username is unknown, so a sign-in takes
// as long whether or not the user exists (OWASP Authentication Cheat Sheet, "Login
// Throttling" and "Authentication Responses": no user enumeration through timing).
var dummyPasswordHash = sync.OnceValue(func() []byte {
	h, err := bcrypt.GenerateFromPassword([]byte("disco: no such user"), passwordCost)
	if err != nil {
		panic(err) // only a cost out of range fails, and passwordCost is a constant in range
	}
	return h
})

// compareHash is bcrypt's comparison; a variable so tests can count comparisons.
var compareHash = bcrypt.CompareHashAndPassword

// VerifyPassword looks the username up and compares password with its hash. It returns
// the user and ok = true only when both succeed; an unknown username is compared against
// a dummy hash of the same cost, so the answer takes as long either way. err is only for
// a failing database. Callers still check the tenant and Disabled.
func (s *Store) VerifyPassword(ctx context.Context, username, password string) (u User, ok bool, err error) {
	u, err = s.UserByUsername(ctx, username)
	found := err == nil
	hash := []byte(u.PasswordHash)
	switch {
	case errors.Is(err, ErrNotFound):
		hash = dummyPasswordHash()
	case err != nil:
		return User{}, false, err
	}
	match := compareHash(hash, []byte(password)) == nil
	if !found || !match {
		return User{}, false, nil
	}
	return u, true, nil
}

// DisableUser disables the user and ends every session they hold; a disabled user stays
// disabled (the first time is kept). Unknown usernames give ErrNotFound.
func (s *Store) DisableUser(ctx context.Context, username string) error {
	return s.changeUser(ctx, "disable user", disableUser(s.Now()), byUsername(username))
}

// EnableUser lets a disabled user sign in again. Sessions ended by DisableUser stay
// ended. Unknown usernames give ErrNotFound.
func (s *Store) EnableUser(ctx context.Context, username string) error {
	return s.changeUser(ctx, "enable user", enableUser, byUsername(username))
}

// DeleteUser removes the user. Their sessions end with them: a session is only accepted
// while its user exists. Unknown usernames give ErrNotFound.
func (s *Store) DeleteUser(ctx context.Context, username string) error {
	return s.changeUser(ctx, "delete user", deleteUser, byUsername(username))
}

// DisableTenantUser is DisableUser for the tenant's user with that id; a user of another
// tenant gives ErrNotFound, as an unknown id does.
func (s *Store) DisableTenantUser(ctx context.Context, tenantID, id string) error {
	return s.changeUser(ctx, "disable user", disableUser(s.Now()), byTenantID(tenantID, id))
}

// EnableTenantUser is EnableUser for the tenant's user with that id.
func (s *Store) EnableTenantUser(ctx context.Context, tenantID, id string) error {
	return s.changeUser(ctx, "enable user", enableUser, byTenantID(tenantID, id))
}

// DeleteTenantUser is DeleteUser for the tenant's user with that id.
func (s *Store) DeleteTenantUser(ctx context.Context, tenantID, id string) error {
	return s.changeUser(ctx, "delete user", deleteUser, byTenantID(tenantID, id))
}

// TenantUser returns the tenant's user with that id, or ErrNotFound (also for a user of
// another tenant).
func (s *Store) TenantUser(ctx context.Context, tenantID, id string) (User, error) {
	return scanUser(s.db.QueryRowContext(ctx, s.Rebind(`SELECT `+userColumns+` FROM users WHERE tenant_id = ? AND id = ?`), tenantID, id))
}

// ListUsers returns up to limit of the tenant's users in creation order, starting after
// the user with id after ("" for the first page).
func (s *Store) ListUsers(ctx context.Context, tenantID string, limit int, after string) ([]User, error) {
	q := `SELECT ` + userColumns + ` FROM users WHERE tenant_id = ?`
	args := []any{tenantID}
	if after != "" {
		q += ` AND (created_at, id) > (SELECT created_at, id FROM users WHERE tenant_id = ? AND id = ?)`
		args = append(args, tenantID, after)
	}
	q += ` ORDER BY created_at, id LIMIT ?`
	args = append(args, clampLimit(limit))
	rows, err := s.db.QueryContext(ctx, s.Rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list users: %w", err)
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// userChange is an UPDATE or DELETE of the users table (without its WHERE) and the
// arguments of its placeholders.
type userChange struct {
	stmt string
	args []any
}

var (
	enableUser = userChange{stmt: `UPDATE users SET disabled_at = NULL`}
	deleteUser = userChange{stmt: `DELETE FROM users`}
)

// disableUser also revokes the user's sessions as of now.
func disableUser(now time.Time) userChange {
	ms := millis(now)
	return userChange{stmt: `UPDATE users SET disabled_at = COALESCE(disabled_at, ?), sessions_revoked_at = ?`, args: []any{ms, ms}}
}

// userMatch picks the user a change applies to: a WHERE condition, its arguments, and how
// to name the user in a not-found error.
type userMatch struct {
	cond string
	args []any
	name string
}

// byUsername matches the username, surrounding spaces ignored.
func byUsername(username string) userMatch {
	username = strings.TrimSpace(username)
	return userMatch{cond: `username = ?`, args: []any{username}, name: fmt.Sprintf("%q", username)}
}

// byTenantID matches the tenant's user with that id.
func byTenantID(tenantID, id string) userMatch {
	return userMatch{cond: `tenant_id = ? AND id = ?`, args: []any{tenantID, id}, name: id}
}

// changeUser applies c to the user m matches; no such user gives ErrNotFound.
func (s *Store) changeUser(ctx context.Context, op string, c userChange, m userMatch) error {
	res, err := s.db.ExecContext(ctx, s.Rebind(c.stmt+` WHERE `+m.cond), append(slices.Clone(c.args), m.args...)...)
	if err != nil {
		return fmt.Errorf("store: %s: %w", op, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: no user %s", ErrNotFound, m.name)
	}
	return nil
}

const userColumns = `id, tenant_id, username, password_hash, created_at, disabled_at, sessions_revoked_at`

func (s *Store) userWhere(ctx context.Context, cond string, arg any) (User, error) {
	return scanUser(s.db.QueryRowContext(ctx, s.Rebind(`SELECT `+userColumns+` FROM users WHERE `+cond), arg))
}

func scanUser(row interface{ Scan(...any) error }) (User, error) {
	var (
		u                 User
		created           int64
		disabled, revoked sql.NullInt64
	)
	err := row.Scan(&u.ID, &u.TenantID, &u.Username, &u.PasswordHash, &created, &disabled, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("store: read user: %w", err)
	}
	u.CreatedAt = fromMillis(created)
	u.DisabledAt, u.SessionsRevokedAt = timePtr(disabled), timePtr(revoked)
	return u, nil
}
