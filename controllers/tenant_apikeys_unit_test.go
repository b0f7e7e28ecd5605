package controllers

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// flakyKeys is a key store whose reads by id fail while down is set (a transient error,
// such as a lock timeout, that the next query may not meet).
type flakyKeys struct {
	keys    map[string]store.APIKey
	down    bool
	created int
	revoked []string
}

var errStoreDown = errors.New("database is locked")

func (f *flakyKeys) CreateAPIKey(_ context.Context, n store.NewAPIKey) (store.APIKey, string, error) {
	f.created++
	k := store.APIKey{ID: ids.New(ids.APIKey), TenantID: n.TenantID, Name: n.Name, Scopes: n.Scopes, CreatedBy: n.CreatedBy, CreatedAt: time.Now()}
	f.keys[k.ID] = k
	return k, "disco_key_" + k.ID, nil
}

func (f *flakyKeys) APIKeyByID(_ context.Context, _, id string) (store.APIKey, error) {
	if f.down {
		return store.APIKey{}, errStoreDown
	}
	k, ok := f.keys[id]
	if !ok {
		return store.APIKey{}, store.ErrNotFound
	}
	return k, nil
}

func (f *flakyKeys) ListAPIKeys(context.Context, string, int, string) ([]store.APIKey, error) {
	var out []store.APIKey
	for _, k := range f.keys {
		out = append(out, k)
	}
	return out, nil
}

func (f *flakyKeys) RevokeAPIKey(_ context.Context, _, id string) error {
	f.revoked = append(f.revoked, id)
	k := f.keys[id]
	now := time.Now()
	k.RevokedAt = &now
	f.keys[id] = k
	return nil
}

// A key store that cannot be read says nothing about a key: the reconcile fails and is
// retried, and the key in use is neither revoked nor replaced.
func TestTenantAPIKeyKeptWhileTheStoreCannotBeRead(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, discov1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	tenant := &discov1.Tenant{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Tenant)), UID: "u"},
		Spec:       discov1.TenantSpec{Tier: discov1.TenantTierTeam, APIKeys: []discov1.TenantAPIKey{{Name: "ci"}}},
		Status:     discov1.TenantStatus{Namespace: "team"},
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(tenant).WithStatusSubresource(&discov1.Tenant{}).Build()
	keys := &flakyKeys{keys: map[string]store.APIKey{}}
	r := &TenantAPIKeyReconciler{Client: c, Reader: c, Keys: keys, Recorder: events.NewFakeRecorder(10)}
	ctx := context.Background()
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(tenant)}

	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "team", Name: "disco-api-key-ci"}, secret); err != nil {
		t.Fatal(err)
	}
	issued := string(secret.Data[SecretKeyAPIKeyID])

	keys.down = true
	if _, err := r.Reconcile(ctx, req); !errors.Is(err, errStoreDown) {
		t.Fatalf("reconcile with the store down: err %v, want the store's error", err)
	}
	if keys.created != 1 || len(keys.revoked) != 0 {
		t.Fatalf("with the store down: %d keys issued and %v revoked, want the one key kept", keys.created, keys.revoked)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(secret), secret); err != nil {
		t.Fatal(err)
	}
	if got := string(secret.Data[SecretKeyAPIKeyID]); got != issued {
		t.Fatalf("the Secret now holds key %s, want %s", got, issued)
	}
	got := &discov1.Tenant{}
	if err := c.Get(ctx, req.NamespacedName, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.APIKeys) != 1 || got.Status.APIKeys[0].ID != issued {
		t.Fatalf("status.apiKeys %+v, want the issued key kept", got.Status.APIKeys)
	}
}
