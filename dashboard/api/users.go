package api

import "time"

// User is a person of the tenant who signs in (GET /users).
type User struct {
	ID                string     `json:"id"`
	Username          string     `json:"username"`
	Status            string     `json:"status"`
	CreatedAt         time.Time  `json:"created_at"`
	DisabledAt        *time.Time `json:"disabled_at"`
	SessionsRevokedAt *time.Time `json:"sessions_revoked_at"`
}
