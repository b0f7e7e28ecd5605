package apiserver

import (
	"context"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
)

// sessionPrefix starts every OAuth access token.
const sessionPrefix = "disco_session_"

// sessionPrincipal checks an OAuth session token.
func (s *Server) sessionPrincipal(ctx context.Context, token string) (*auth.Principal, *apiError) {
	return nil, apierror.Unauthenticated("invalid", "the session token is not valid")
}
