package apikeys

import (
	"time"

	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/store"
)

type APIKey struct {
	ID         string     `json:"id" example:"key_abcdefghijklmnopqrstuvwxyz"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix" doc:"The first characters of the key, for recognising it."`
	Scopes     []string   `json:"scopes"`
	ProjectIDs []string   `json:"project_ids" doc:"Projects the key is restricted to; empty means all of the tenant's."`
	Status     string     `json:"status" enum:"active,rolled,revoked,expired"`
	CreatedAt  time.Time  `json:"created_at"`
	CreatedBy  string     `json:"created_by"`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	ReplacedBy string     `json:"replaced_by,omitempty"`
	GraceUntil *time.Time `json:"grace_until,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at" nullable:"true" doc:"When the key last authenticated a request, exact to the minute; null if it never has."`
	// Key is the plaintext, present only in the response that created it.
	Key string `json:"key,omitempty" doc:"The key itself; shown once, in the response that creates it."`
}

func utcOpt(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (s *handlers) apiKeyOf(k store.APIKey) APIKey {
	now := s.Kit.Now()
	status := "active"
	switch {
	case k.RevokedAt != nil && !now.Before(*k.RevokedAt):
		status = "revoked"
	case k.ReplacedBy != "" && k.ActiveAt(now):
		status = "rolled"
	case !k.ActiveAt(now):
		status = "expired"
	}
	return APIKey{
		ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: resource.NonNil(k.Scopes), ProjectIDs: resource.NonNil(k.ProjectIDs), Status: status,
		CreatedAt: k.CreatedAt.UTC(), CreatedBy: k.CreatedBy, ExpiresAt: utcOpt(k.ExpiresAt), RevokedAt: utcOpt(k.RevokedAt),
		ReplacedBy: k.ReplacedBy, GraceUntil: utcOpt(k.GraceUntil), LastUsedAt: utcOpt(k.LastUsedAt),
	}
}

type apiKeyCreate struct {
	Name       string     `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Scopes     []string   `json:"scopes,omitempty" maxItems:"32" doc:"Default: the caller's scopes. A key cannot grant scopes its creator lacks."`
	ProjectIDs []string   `json:"project_ids,omitempty" maxItems:"256" doc:"Restrict the key to these projects."`
	ExpiresAt  *time.Time `json:"expires_at,omitempty"`
}

// newAPIKeyOutput answers a created or rolled key: its location and, once, its secret.
type newAPIKeyOutput struct {
	Location string `header:"Location"`
	Body     APIKey
}

// newAPIKey is the answer for key k whose secret is plain.
func (s *handlers) newAPIKey(k store.APIKey, plain string) *newAPIKeyOutput {
	out := s.apiKeyOf(k)
	out.Key = plain
	return &newAPIKeyOutput{Location: s.Kit.BaseURL + "/api-keys/" + k.ID, Body: out}
}
