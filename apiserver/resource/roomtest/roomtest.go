// Package roomtest holds what the rooms' unit tests share, so their services and
// handlers are tested without HTTP: a context carrying a caller, the check of an
// envelope error, and a Kit over a fake client.
package roomtest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
)

// Caller returns a context whose caller is an API key of tenant (its objects in
// namespace) with scopes, restricted to projects when any are given.
func Caller(tenant, namespace string, scopes []string, projects ...string) context.Context {
	return auth.WithCaller(context.Background(), &auth.Caller{
		Principal: &auth.Principal{Kind: auth.KindAPIKey, TenantID: tenant, Actor: "key_test", CredentialID: "key_test",
			Scopes: scopes, ProjectIDs: projects},
		Tenant: &auth.Tenant{ID: tenant, Namespace: namespace},
	})
}

// WantError fails the test unless err is an envelope error with status and code, and
// returns the envelope's details.
func WantError(t testing.TB, err error, status int, code string) map[string]any {
	t.Helper()
	e := apierror.Of(err)
	if e == nil || e.GetStatus() != status || e.Body.Code != code {
		t.Fatalf("got %v, want %d %s", err, status, code)
	}
	return e.Body.Details
}

// Kit is a resource.Kit over controller-runtime's fake client holding objs, with funcs
// intercepting its calls and a fixed clock, and the client itself for the test's checks.
func Kit(t testing.TB, funcs interceptor.Funcs, objs ...client.Object) (*resource.Kit, client.Client) {
	t.Helper()
	sc := runtime.NewScheme()
	if err := discov1.AddToScheme(sc); err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(sc).WithObjects(objs...).WithInterceptorFuncs(funcs).Build()
	return resource.NewKit(resource.Kit{Client: c, APIReader: c, Now: func() time.Time { return time.Unix(1700000000, 0) }}), c
}

// RacingUpdate intercepts the first Update as a controller writing between the caller's
// read and its write does: change is applied to the object as stored, and the caller's
// write is answered with a conflict. Later updates go through.
func RacingUpdate[T client.Object](resource string, change func(T)) interceptor.Funcs {
	raced := false
	return interceptor.Funcs{Update: func(ctx context.Context, cl client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
		if raced {
			return cl.Update(ctx, obj, opts...)
		}
		raced = true
		other := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(T)
		if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), other); err != nil {
			return err
		}
		change(other)
		if err := cl.Update(ctx, other); err != nil {
			return err
		}
		return apierrors.NewConflict(schema.GroupResource{Resource: resource}, obj.GetName(), errors.New("modified"))
	}}
}
