// Package resource is what every resource room of the facade shares: reading objects of
// the caller's tenant (auth.Access) from the cache, waiting for the cache after a write,
// the contract's list pages and cursors, the answer to a failed write, and the labels
// every created object carries. It holds no resource of its own.
package resource

import (
	"net/http"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/listindex"
	"github.com/discolab/disco/apiserver/pagination"
)

// Kit is the shared dependency of the resource rooms.
type Kit struct {
	// Access reads objects the caller may reach (GetIn, Project, Campaign).
	auth.Access
	// Client reads from the manager's cache (with the internal/index field indexes
	// registered) and writes to the API server.
	Client client.Client
	// APIReader reads the API server directly, for read-after-write.
	APIReader client.Reader
	// Cursors signs and checks list cursors.
	Cursors *pagination.Codec
	// ClaimIndex, when set, answers claim lists; AwaitCache waits for it after a claim
	// is written.
	ClaimIndex *listindex.Index
	Log        logr.Logger
	Now        func() time.Time
	// BaseURL is the public address including /v1, for Location headers.
	BaseURL string
}

// NewKit returns a Kit whose Access reads through the kit's own Get and lists from its
// cache.
func NewKit(k Kit) *Kit {
	kit := &k
	kit.Access = auth.Access{Reader: cacheFirst{kit}}
	return kit
}

// WriteErrorOf maps an API server error of a write to the facade's answer.
func WriteErrorOf(err error, kind, id string) error {
	switch {
	case err == nil:
		return nil
	case apierrors.IsConflict(err):
		return apierror.Conflict("the %s was modified concurrently; read it again and retry", kind).With("resource", kind).With("id", id)
	case apierrors.IsAlreadyExists(err):
		return apierror.Conflict("the %s already exists", kind).With("resource", kind).With("id", id)
	case apierrors.IsNotFound(err) && notFoundKind(err) == "namespaces":
		// The tenant namespace is missing: the controller has not set the tenant up yet.
		return apierror.New(http.StatusServiceUnavailable, apierror.CodeUnavailable, "the tenant is not ready yet; retry shortly").WithCause(err)
	case apierrors.IsNotFound(err):
		return apierror.NotFound(kind, id)
	case apierrors.IsInvalid(err):
		return apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the %s was rejected: %s", kind, apiStatusMessage(err)).
			With("fields", invalidFields(err))
	}
	return apierror.Internal(err)
}

func notFoundKind(err error) string {
	if se, ok := err.(apierrors.APIStatus); ok && se.Status().Details != nil {
		return se.Status().Details.Kind
	}
	return ""
}

func apiStatusMessage(err error) string {
	if se, ok := err.(apierrors.APIStatus); ok {
		return se.Status().Message
	}
	return err.Error()
}

func invalidFields(err error) []apierror.Field {
	out := []apierror.Field{}
	if se, ok := err.(apierrors.APIStatus); ok && se.Status().Details != nil {
		for _, c := range se.Status().Details.Causes {
			out = append(out, apierror.Field{Field: c.Field, Message: c.Message})
		}
	}
	return out
}

// Labels are put on every object the facade creates.
func Labels(tenantID string, kv ...string) map[string]string {
	m := map[string]string{discov1.LabelTenant: tenantID}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}
