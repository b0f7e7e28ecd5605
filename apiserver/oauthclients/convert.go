package oauthclients

import (
	"time"

	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/apiserver/resource"
)

type OAuthClient struct {
	ID           string    `json:"id" example:"cli_abcdefghijklmnopqrstuvwxyz"`
	Name         string    `json:"name"`
	RedirectURIs []string  `json:"redirect_uris"`
	Scopes       []string  `json:"scopes"`
	Public       bool      `json:"public" doc:"Public clients (native apps, CLIs, SDKs) have no secret and must use PKCE."`
	CreatedAt    time.Time `json:"created_at"`
	ClientSecret string    `json:"client_secret,omitempty" doc:"Confidential clients only; shown once."`
}

func oauthClientOf(c *oauth.Client) OAuthClient {
	return OAuthClient{ID: c.ID, Name: c.Name, RedirectURIs: c.RedirectURIs, Scopes: resource.NonNil(c.Scopes), Public: c.Public, CreatedAt: c.CreatedAt}
}

type oauthClientCreate struct {
	Name         string   `json:"name" required:"true" minLength:"1" maxLength:"200"`
	RedirectURIs []string `json:"redirect_uris" required:"true" minItems:"1" maxItems:"10"`
	Scopes       []string `json:"scopes,omitempty" maxItems:"32" doc:"Default: the creator's scopes."`
	Public       *bool    `json:"public,omitempty" doc:"Default true."`
}

// Spec describes a client for CreateOAuthClient.
type Spec struct {
	TenantID     string
	Name         string
	RedirectURIs []string
	Scopes       []string // default: every scope
	Public       bool
	CreatedBy    string
}
