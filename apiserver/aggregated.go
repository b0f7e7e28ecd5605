package apiserver

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/transport"
)

// The facade can be registered with the cluster's kube-apiserver as an aggregated API
// (an APIService for api.disco.dev/v1). The kube-apiserver then proxies
// /apis/api.disco.dev/v1/... here, having authenticated the user itself; it says who the
// user is in X-Remote-User and X-Remote-Group and proves it is the proxy with a client
// certificate signed by the request-header CA. Those headers are trusted only with such a
// certificate: anyone else could send them.

const (
	aggregatedGroup   = "api.disco.dev"
	aggregatedPrefix  = "/apis/" + aggregatedGroup
	aggregatedVersion = aggregatedPrefix + "/v1"
)

// RequestHeaderAuth configures the front-proxy identity of the aggregated API path.
type RequestHeaderAuth struct {
	// ClientCAs verifies the front proxy's client certificate (the cluster's
	// requestheader-client-ca-file).
	ClientCAs *x509.CertPool
	// AllowedNames are the common names the proxy's certificate may have; empty allows any
	// certificate the CA signed (requestheader-allowed-names).
	AllowedNames []string
	// UsernameHeaders and GroupHeaders default to X-Remote-User and X-Remote-Group.
	UsernameHeaders []string
	GroupHeaders    []string
}

// proxyScopes are what a user mapped to a tenant by group may do: everything but managing
// credentials, which stays with API keys and sessions of the tenant's own users.
var proxyScopes = func() []string {
	var out []string
	for _, s := range auth.All {
		if s != auth.APIKeysWrite {
			out = append(out, s)
		}
	}
	return out
}()

// aggregated serves the discovery documents and maps /apis/api.disco.dev/v1/... onto
// /v1/..., with the front-proxy identity when the client certificate allows it.
func (s *Server) aggregated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p != aggregatedPrefix && !strings.HasPrefix(p, aggregatedPrefix+"/") {
			next.ServeHTTP(w, r)
			return
		}
		switch strings.TrimSuffix(p, "/") {
		case aggregatedPrefix:
			writeJSON(w, apiGroup())
			return
		case aggregatedVersion:
			writeJSON(w, apiResourceList())
			return
		}
		if !strings.HasPrefix(p, aggregatedVersion+"/") {
			transport.Fail(w, r, apierror.New(http.StatusNotFound, apierror.CodeNotFound, "no such path: %s", p).With("path", p))
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/v1" + strings.TrimPrefix(p, aggregatedVersion)
		if r.URL.RawPath != "" {
			r2.URL.RawPath = "/v1" + strings.TrimPrefix(r.URL.RawPath, aggregatedVersion)
		}
		if user, groups, ok := s.proxyIdentity(r); ok {
			c := s.proxyCaller(r, user, groups)
			r2 = r2.WithContext(auth.WithCaller(r2.Context(), c))
		}
		next.ServeHTTP(w, r2)
	})
}

// proxyIdentity returns the user named by the front proxy, if the request comes from it.
func (s *Server) proxyIdentity(r *http.Request) (string, []string, bool) {
	cfg := s.opts.RequestHeader
	if cfg == nil || cfg.ClientCAs == nil || r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return "", nil, false
	}
	certs := r.TLS.PeerCertificates
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	if _, err := certs[0].Verify(x509.VerifyOptions{
		Roots: cfg.ClientCAs, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return "", nil, false
	}
	if len(cfg.AllowedNames) > 0 && !slices.Contains(cfg.AllowedNames, certs[0].Subject.CommonName) {
		return "", nil, false
	}
	userHeaders, groupHeaders := cfg.UsernameHeaders, cfg.GroupHeaders
	if len(userHeaders) == 0 {
		userHeaders = []string{"X-Remote-User"}
	}
	if len(groupHeaders) == 0 {
		groupHeaders = []string{"X-Remote-Group"}
	}
	var user string
	for _, h := range userHeaders {
		if v := r.Header.Get(h); v != "" {
			user = v
			break
		}
	}
	if user == "" {
		return "", nil, false
	}
	var groups []string
	for _, h := range groupHeaders {
		groups = append(groups, r.Header.Values(h)...)
	}
	return user, groups, true
}

// proxyCaller maps a proxied user to the tenant that lists one of the user's groups.
func (s *Server) proxyCaller(r *http.Request, user string, groups []string) *auth.Caller {
	var tenants discov1.TenantList
	if err := s.opts.Client.List(r.Context(), &tenants, client.UnsafeDisableDeepCopy); err != nil {
		return &auth.Caller{Failure: apierror.Internal(err)}
	}
	var matches []*discov1.Tenant
	for i := range tenants.Items {
		t := &tenants.Items[i]
		for _, g := range groups {
			if slices.Contains(t.Spec.Groups, g) {
				matches = append(matches, t)
				break
			}
		}
	}
	switch len(matches) {
	case 0:
		return &auth.Caller{Failure: apierror.New(http.StatusForbidden, apierror.CodeForbidden,
			"user %s belongs to no disco tenant (no Tenant lists any of its groups)", user).With("user", user)}
	case 1:
	default:
		names := make([]string, 0, len(matches))
		for _, t := range matches {
			names = append(names, t.Name)
		}
		slices.Sort(names)
		return &auth.Caller{Failure: apierror.New(http.StatusForbidden, apierror.CodeForbidden,
			"user %s belongs to several tenants through its groups; it must map to exactly one", user).With("tenants", names)}
	}
	t := auth.TenantOf(matches[0])
	return &auth.Caller{
		Principal: &auth.Principal{Kind: auth.KindProxy, TenantID: t.ID, Actor: "k8s:" + user, CredentialID: user, Scopes: proxyScopes},
		Tenant:    t,
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
}

// apiResourceList is the discovery document kubectl reads for the group version.
func apiResourceList() map[string]any {
	return map[string]any{
		"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": aggregatedGroup + "/v1",
		"resources": []apiResource{
			{Name: "projects", SingularName: "project", Kind: "Project", Verbs: []string{"create", "get", "list", "patch"}},
			{Name: "webhooks", SingularName: "webhook", Kind: "Webhook", Verbs: []string{"create", "delete", "get", "list"}},
			{Name: "api-keys", SingularName: "api-key", Kind: "APIKey", Verbs: []string{"create", "delete", "get", "list"}},
		},
	}
}

func apiGroup() map[string]any {
	gv := map[string]string{"groupVersion": aggregatedGroup + "/v1", "version": "v1"}
	return map[string]any{"kind": "APIGroup", "apiVersion": "v1", "name": aggregatedGroup, "versions": []any{gv}, "preferredVersion": gv}
}
