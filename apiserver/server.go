// Package apiserver is disco's REST facade: the /v1 contract of
// shared/spec/discovery-api.md over the custom resources, with API keys and OAuth
// sessions, scopes, tenants, rate limits, pagination, idempotency, the error envelope and
// the OpenAPI 3.1 document. It holds no state of its own beyond caches: resources are read
// through the controller-runtime cache and written through the client; credentials,
// idempotency records and webhooks live in the SQL store.
//
// This package composes the facade: Options, New, Handler, the mounting of the rooms
// (routes.go lists them), the probes and the aggregated-API path. The front door is in
// transport, the caller in auth, and each resource in a room of its own.
package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/claims"
	"github.com/discolab/disco/apiserver/datasets"
	"github.com/discolab/disco/apiserver/listindex"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/ratelimit"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// Options configures a Server.
type Options struct {
	// Client reads from the manager's cache (with the internal/index field indexes
	// registered) and writes to the API server.
	Client client.Client
	// APIReader reads the API server directly, for read-after-write.
	APIReader client.Reader
	Store     *store.Store
	// Ledger may be nil: the ledger routes then answer 501.
	Ledger *ledger.Ledger
	// Blob holds dataset files, profiles, results and artifacts.
	Blob   *blob.Bucket
	Logger logr.Logger
	// BaseURL is the public address including /v1, e.g. http://127.0.0.1:8080/v1.
	BaseURL string
	// MaxUploadBytes bounds a dataset upload; default 512 MiB.
	MaxUploadBytes int64
	// ScratchDir holds uploads while they are checked; "" means a private directory under
	// the OS temp dir. New deletes the upload files a killed process left there.
	ScratchDir string
	// RedisURL shares rate limits between replicas; "" keeps them in memory.
	RedisURL string
	// AllowLoopbackWebhooks lets webhooks target loopback addresses (disco dev).
	AllowLoopbackWebhooks bool
	// Ready reports readiness; nil means always ready.
	Ready func(*http.Request) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Informers is the manager's cache; when set, claim lists are answered from a sorted
	// per-project index fed by its informer (O(log n + limit) a page), not by listing and
	// sorting every claim of the project.
	Informers listindex.InformerGetter
	// Limits overrides the per-tier rate limits; nil keeps DESIGN.md's.
	Limits *Limits
	// RequestHeader trusts front-proxy identities on /apis/api.disco.dev/v1 when the
	// facade is registered as an aggregated API; nil accepts only Bearer credentials there.
	RequestHeader *RequestHeaderAuth
	// Timeouts bound slow clients: headers, idle connections and request bodies.
	Timeouts Timeouts
}

// DefaultMaxUploadBytes is the dataset upload limit when Options leaves it zero.
const DefaultMaxUploadBytes = 512 << 20

// Limits overrides the per-minute rate limits (transport.Limits).
type Limits = transport.Limits

// Timeouts bound slow clients (transport.Timeouts).
type Timeouts = transport.Timeouts

// Default timeouts; see Timeouts.
const (
	DefaultReadHeaderTimeout = transport.DefaultReadHeaderTimeout
	DefaultIdleTimeout       = transport.DefaultIdleTimeout
	DefaultBodyStallTimeout  = transport.DefaultBodyStallTimeout
	DefaultBodyTimeout       = transport.DefaultBodyTimeout
	DefaultUploadTimeout     = transport.DefaultUploadTimeout
)

// Server is the facade.
type Server struct {
	opts     Options
	log      logr.Logger
	now      func() time.Time
	docsBase string

	mux     *http.ServeMux
	api     huma.API
	handler http.Handler

	// kit is what the resource rooms share: tenant-scoped reads, the cache, cursors.
	kit *resource.Kit
	// front is the middleware of the front door (transport).
	front *transport.Front
	// authn resolves credentials (auth).
	authn *auth.Authenticator

	oauth       *oauth.Provider
	oauthSecret []byte
}

// New builds the facade.
func New(opts Options) (*Server, error) {
	if opts.Client == nil || opts.Store == nil {
		return nil, errors.New("apiserver: Options.Client and Options.Store are required")
	}
	if opts.APIReader == nil {
		opts.APIReader = opts.Client
	}
	if opts.MaxUploadBytes <= 0 {
		opts.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if opts.BaseURL == "" {
		opts.BaseURL = "/v1"
	}
	opts.BaseURL = strings.TrimSuffix(opts.BaseURL, "/")
	dir, err := datasets.PrepareUploads(opts.ScratchDir, opts.Logger)
	if err != nil {
		return nil, err
	}
	opts.ScratchDir = dir
	s := &Server{
		opts:     opts,
		log:      opts.Logger.WithName("apiserver"),
		now:      opts.Now,
		docsBase: opts.BaseURL,
		mux:      http.NewServeMux(),
	}
	if s.now == nil {
		s.now = time.Now
	}
	var claimIndex *listindex.Index
	if opts.Informers != nil {
		claimIndex = listindex.New(claims.Sort)
		if err := claimIndex.Register(context.Background(), opts.Informers); err != nil {
			return nil, fmt.Errorf("apiserver: claim index: %w", err)
		}
	}

	ctx := context.Background()
	key, err := cursorKey(ctx, opts.Store)
	if err != nil {
		return nil, err
	}
	s.kit = resource.NewKit(resource.Kit{
		Client: opts.Client, APIReader: opts.APIReader, Cursors: pagination.NewCodec(key), ClaimIndex: claimIndex,
		Log: s.log, Now: s.now, BaseURL: opts.BaseURL,
	})

	if s.oauthSecret, err = setting(ctx, opts.Store, "oauth_hmac_secret"); err != nil {
		return nil, err
	}
	oauthStorage, err := oauth.NewStorage(ctx, opts.Store, s.now)
	if err != nil {
		return nil, err
	}
	s.oauth = oauth.NewProvider(oauthStorage, s.oauthSecret, opts.BaseURL+"/auth/token")

	s.authn = auth.NewAuthenticator(opts.Store, s.oauth, s.now, s.kit.Access.Reader)

	var limiter ratelimit.Limiter
	if opts.RedisURL != "" {
		rl, err := ratelimit.NewRedis(opts.RedisURL)
		if err != nil {
			return nil, err
		}
		limiter = rl
	} else {
		limiter = ratelimit.NewMemory(s.now)
	}
	s.front = transport.NewFront(transport.Config{
		Log: s.log, DocsBase: s.docsBase, Now: s.now, Store: opts.Store, Limiter: limiter, Limits: opts.Limits,
		Timeouts: opts.Timeouts, UploadPath: uploadPath, Authenticate: s.authn.Middleware,
	})

	s.api = s.newAPI()
	s.registerRoutes()
	transport.FinishOpenAPI(s.api)
	s.handler = s.middleware()
	return s, nil
}

// Handler serves /healthz, /readyz, /v1/... and /apis/api.disco.dev/v1/....
func (s *Server) Handler() http.Handler { return s.handler }

// newAPI configures huma: OpenAPI 3.1 at /v1/openapi.json, our error type, no $schema
// links in bodies, unknown request fields ignored, fields optional unless tagged required.
func (s *Server) newAPI() huma.API {
	transport.InstallErrorHooks()
	cfg := huma.DefaultConfig("disco discovery API", "v1")
	cfg.CreateHooks = nil // drop the $schema link transformer: bodies carry only contract fields
	cfg.DocsPath = ""
	cfg.SchemasPath = ""
	cfg.OpenAPIPath = "/openapi"
	cfg.AllowAdditionalPropertiesByDefault = true
	cfg.FieldsOptionalByDefault = true
	cfg.Servers = []*huma.Server{{URL: s.opts.BaseURL}}
	cfg.Info.Description = "The disco scientific discovery service. Every operation needs a Bearer credential " +
		"(API key disco_key_... or session token disco_session_...) carrying the scope named in its security requirement."
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {
			Type:         "http",
			Scheme:       "bearer",
			Description:  "An API key (disco_key_...) or an OAuth session token (disco_session_...).",
			BearerFormat: "opaque",
		},
		"oauth2": {
			Type: "oauth2",
			Flows: &huma.OAuthFlows{AuthorizationCode: &huma.OAuthFlow{
				AuthorizationURL: s.opts.BaseURL + "/auth/authorize",
				TokenURL:         s.opts.BaseURL + "/auth/token",
				RefreshURL:       s.opts.BaseURL + "/auth/token",
				Scopes:           auth.ScopeDescriptions(),
			}},
		},
	}
	cfg.Transformers = []huma.Transformer{transport.CompleteErrors(s.docsBase)}
	api := humago.NewWithPrefix(s.mux, "/v1", cfg)
	api.UseMiddleware(auth.Authorize(api), transport.AnnounceDeprecation, transport.RawAccess)
	return api
}

func (s *Server) String() string { return fmt.Sprintf("apiserver(%s)", s.opts.BaseURL) }
