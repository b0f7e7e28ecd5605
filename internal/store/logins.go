package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"
)

// LoginForgetAfter is how long a (tenant, username) pair must go without a failed
// sign-in before its failures are forgotten.
const LoginForgetAfter = 24 * time.Hour

// loginKey names the throttle row of a username signing in to a tenant. It is a hash so
// that passwords typed into the username field are not stored.
func loginKey(tenantID, username string) string {
	sum := sha256.Sum256([]byte(tenantID + "\x00" + username))
	return hex.EncodeToString(sum[:])
}

// BeginLogin decides whether a sign-in as username to the tenant may be tried at now, for
// per-account throttling (OWASP Authentication Cheat Sheet, "Login Throttling"). While
// the pair is locked it returns how long to wait, and the attempt must be refused
// without checking the password. Otherwise it returns 0 and counts the attempt as a
// failure up front, locking the pair for lockFor(failures) (0: no lock); LoginSucceeded
// clears the count. Counting before the password is checked means concurrent guesses
// cannot all slip in before the lock is written. The row is shared by every replica.
func (s *Store) BeginLogin(ctx context.Context, tenantID, username string, now time.Time, lockFor func(failures int) time.Duration) (time.Duration, error) {
	key := loginKey(tenantID, username)
	var wait time.Duration
	err := s.WithTx(ctx, func(tx *sql.Tx) error {
		// Insert first so the row exists for the locking read below: two first attempts
		// on PostgreSQL then serialise on it instead of both inserting a count of one.
		if _, err := tx.ExecContext(ctx, s.Rebind(`INSERT INTO login_throttle (id, failures, last_failure_at)
			VALUES (?, 0, ?) ON CONFLICT (id) DO NOTHING`), key, millis(now)); err != nil {
			return fmt.Errorf("store: begin login: %w", err)
		}
		var (
			failures    int
			lockedUntil sql.NullInt64
			last        int64
		)
		err := tx.QueryRowContext(ctx, s.Rebind(`SELECT failures, locked_until, last_failure_at FROM login_throttle WHERE id = ?`+s.forUpdate()), key).
			Scan(&failures, &lockedUntil, &last)
		if err != nil {
			return fmt.Errorf("store: begin login: %w", err)
		}
		if lockedUntil.Valid && now.Before(fromMillis(lockedUntil.Int64)) {
			wait = fromMillis(lockedUntil.Int64).Sub(now)
			return nil
		}
		if now.Sub(fromMillis(last)) >= LoginForgetAfter {
			failures = 0
		}
		failures++
		locked := sql.NullInt64{}
		if d := lockFor(failures); d > 0 {
			locked = sql.NullInt64{Int64: millis(now.Add(d)), Valid: true}
		}
		_, err = tx.ExecContext(ctx, s.Rebind(`UPDATE login_throttle SET failures = ?, locked_until = ?, last_failure_at = ? WHERE id = ?`),
			failures, locked, millis(now), key)
		if err != nil {
			return fmt.Errorf("store: begin login: %w", err)
		}
		return nil
	})
	return wait, err
}

// LoginSucceeded forgets the failures of the pair after a successful sign-in.
func (s *Store) LoginSucceeded(ctx context.Context, tenantID, username string) error {
	_, err := s.db.ExecContext(ctx, s.Rebind(`DELETE FROM login_throttle WHERE id = ?`), loginKey(tenantID, username))
	if err != nil {
		return fmt.Errorf("store: login succeeded: %w", err)
	}
	return nil
}

// SweepLogins deletes the rows of pairs that are not locked and whose last failure is
// older than LoginForgetAfter; they would count from zero anyway.
func (s *Store) SweepLogins(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.Rebind(`DELETE FROM login_throttle WHERE last_failure_at < ? AND (locked_until IS NULL OR locked_until <= ?)`),
		millis(now.Add(-LoginForgetAfter)), millis(now))
	if err != nil {
		return 0, fmt.Errorf("store: sweep logins: %w", err)
	}
	return res.RowsAffected()
}
