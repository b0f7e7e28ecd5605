package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
}

// CreateUser stores a new user with a bcrypt hash of password. A taken username
// gives ErrConflict.
func (s *Store) CreateUser(ctx context.Context, tenantID, username, password string) (User, error) {
	username = strings.TrimSpace(username)
	if tenantID == "" || username == "" || password == "" {
		return User{}, errors.New("store: tenant, username and password are required")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
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

// CheckPassword reports whether password matches the user's stored hash.
func (u User) CheckPassword(password string) bool {
	return bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) == nil
}

func (s *Store) userWhere(ctx context.Context, cond string, arg any) (User, error) {
	var (
		u       User
		created int64
	)
	err := s.db.QueryRowContext(ctx, s.Rebind(`SELECT id, tenant_id, username, password_hash, created_at FROM users WHERE `+cond), arg).
		Scan(&u.ID, &u.TenantID, &u.Username, &u.PasswordHash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("store: read user: %w", err)
	}
	u.CreatedAt = fromMillis(created)
	return u, nil
}
