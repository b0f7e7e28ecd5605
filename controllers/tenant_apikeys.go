package controllers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/store"
)

// APIKeyStore holds the REST API's keys (internal/store.Store).
type APIKeyStore interface {
	CreateAPIKey(ctx context.Context, n store.NewAPIKey) (store.APIKey, string, error)
	APIKeyByID(ctx context.Context, tenantID, id string) (store.APIKey, error)
	ListAPIKeys(ctx context.Context, tenantID string, limit int, after string) ([]store.APIKey, error)
	RevokeAPIKey(ctx context.Context, tenantID, id string) error
}

// Keys of an API key Secret's data.
const (
	SecretKeyAPIKey   = "DISCO_API_KEY"
	SecretKeyAPIKeyID = "DISCO_API_KEY_ID"
	SecretKeyTenantID = "DISCO_TENANT_ID"
)

// apiKeyActor is the created_by of the keys the controller issues.
const apiKeyActor = "controller:tenant-api-keys"

// apiKeyRecheck is how often a tenant with declared keys is looked at again: the manager
// does not watch Secrets (it may only get them) nor the key store, so a deleted Secret or a
// key revoked over REST is noticed by polling.
const apiKeyRecheck = time.Minute

// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update;delete

// TenantAPIKeyReconciler issues the API keys a Tenant declares in spec.apiKeys and keeps
// each in its Secret (issue 14, item 7). A key is issued again, and the old one revoked,
// when its Secret is gone or was changed, when the key was revoked or expired, or when its
// scopes changed. Keys issued before a crash that never reached their Secret are revoked
// before a new one is issued, so at most one key per entry stays active.
type TenantAPIKeyReconciler struct {
	client.Client
	// Reader reads Secrets uncached, by name.
	Reader   client.Reader
	Keys     APIKeyStore
	Recorder events.EventRecorder
	Clock    clock.PassiveClock
}

func (r *TenantAPIKeyReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	t := &discov1.Tenant{}
	if err := r.Get(ctx, req.NamespacedName, t); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	ns := t.Status.Namespace
	if !t.DeletionTimestamp.IsZero() || ns == "" || (len(t.Spec.APIKeys) == 0 && len(t.Status.APIKeys) == 0) {
		return ctrl.Result{}, nil // the tenant controller's status update brings the namespace
	}
	tenantID := t.ID()
	before := t.DeepCopy()
	issued := map[string]discov1.IssuedAPIKey{}
	for _, k := range t.Status.APIKeys {
		issued[k.Name] = k
	}
	var next []discov1.IssuedAPIKey
	var errs []error
	for _, want := range t.Spec.APIKeys {
		cur, had := issued[want.Name]
		delete(issued, want.Name)
		k, ok, err := r.inSecret(ctx, ns, tenantID, want)
		if err != nil {
			// A read that failed says nothing about the key: reissuing on it would revoke a
			// key that is in use.
			errs = append(errs, fmt.Errorf("api key %s: %w", want.Name, err))
			if had {
				next = append(next, cur)
			}
			continue
		}
		if ok {
			next = append(next, k)
			continue
		}
		k, err = r.issue(ctx, t, ns, tenantID, want)
		if err != nil {
			errs = append(errs, fmt.Errorf("api key %s: %w", want.Name, err))
			if had {
				next = append(next, cur) // tried again at the next reconcile
			}
			continue
		}
		r.Recorder.Eventf(t, nil, corev1.EventTypeNormal, "APIKeyIssued", "IssueAPIKey",
			"issued API key %s (%s) into Secret %s/%s", want.Name, k.ID, ns, k.SecretName)
		next = append(next, k)
	}
	for _, gone := range issued {
		if err := r.retire(ctx, t, ns, tenantID, gone); err != nil {
			errs = append(errs, fmt.Errorf("api key %s: %w", gone.Name, err))
			next = append(next, gone)
		}
	}
	t.Status.APIKeys = next
	// Only this controller writes status.apiKeys, and what it writes is read back from the
	// Secrets and the store (inSecret), so a plain merge patch that does not conflict with
	// the tenant controller's status writes is enough.
	if !equality.Semantic.DeepEqual(before.Status.APIKeys, next) {
		if err := r.Status().Patch(ctx, t, client.MergeFrom(before)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	if len(t.Spec.APIKeys) == 0 {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: apiKeyRecheck}, nil
}

// inSecret returns the key the entry's Secret holds when it still serves the entry: the
// Secret is disco's, and its key is active in the store with the entry's scopes. The Secret
// and the store, not status.apiKeys, are the record, so a status that a crash or a stale
// cache left behind never makes a second key. An error is a read that failed for another
// reason than the Secret or the key being gone.
func (r *TenantAPIKeyReconciler) inSecret(ctx context.Context, ns, tenantID string, want discov1.TenantAPIKey) (discov1.IssuedAPIKey, bool, error) {
	s := &corev1.Secret{}
	if err := r.Reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: want.SecretName()}, s); err != nil {
		return discov1.IssuedAPIKey{}, false, client.IgnoreNotFound(err)
	}
	if s.Labels[discov1.LabelManagedBy] != "disco" || len(s.Data[SecretKeyAPIKey]) == 0 {
		return discov1.IssuedAPIKey{}, false, nil
	}
	k, err := r.Keys.APIKeyByID(ctx, tenantID, string(s.Data[SecretKeyAPIKeyID]))
	if errors.Is(err, store.ErrNotFound) {
		return discov1.IssuedAPIKey{}, false, nil
	}
	if err != nil {
		return discov1.IssuedAPIKey{}, false, err
	}
	if !k.ActiveAt(now(r.Clock)) || !slices.Equal(k.Scopes, scopesOf(want)) {
		return discov1.IssuedAPIKey{}, false, nil
	}
	return discov1.IssuedAPIKey{Name: want.Name, ID: k.ID, SecretName: want.SecretName(), IssuedAt: metav1.NewTime(k.CreatedAt).Rfc3339Copy()}, true, nil
}

// issue revokes every key the controller issued for the entry, then issues one and writes
// it to the entry's Secret. A Secret of that name that disco did not make is left alone.
func (r *TenantAPIKeyReconciler) issue(ctx context.Context, t *discov1.Tenant, ns, tenantID string, want discov1.TenantAPIKey) (discov1.IssuedAPIKey, error) {
	secret := &corev1.Secret{}
	err := r.Reader.Get(ctx, client.ObjectKey{Namespace: ns, Name: want.SecretName()}, secret)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return discov1.IssuedAPIKey{}, err
	}
	if exists && secret.Labels[discov1.LabelManagedBy] != "disco" {
		r.Recorder.Eventf(t, nil, corev1.EventTypeWarning, "APIKeySecretTaken", "IssueAPIKey",
			"the Secret %s/%s exists and is not disco's; the API key %s is not issued until it is removed", ns, want.SecretName(), want.Name)
		return discov1.IssuedAPIKey{}, fmt.Errorf("the Secret %s/%s is not disco's", ns, want.SecretName())
	}
	if err := r.revokeIssued(ctx, tenantID, want.Name); err != nil {
		return discov1.IssuedAPIKey{}, err
	}
	k, plain, err := r.Keys.CreateAPIKey(ctx, store.NewAPIKey{TenantID: tenantID, Name: want.Name, Scopes: scopesOf(want), CreatedBy: apiKeyActor})
	if err != nil {
		return discov1.IssuedAPIKey{}, err
	}
	if !exists {
		secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: want.SecretName(), Namespace: ns}}
	}
	if secret.Labels == nil {
		secret.Labels = map[string]string{}
	}
	secret.Labels[discov1.LabelManagedBy] = "disco"
	secret.Labels[discov1.LabelTenant] = tenantID
	secret.Type = corev1.SecretTypeOpaque
	secret.Data = map[string][]byte{SecretKeyAPIKey: []byte(plain), SecretKeyAPIKeyID: []byte(k.ID), SecretKeyTenantID: []byte(tenantID)}
	if err := controllerutil.SetOwnerReference(t, secret, r.Scheme()); err != nil {
		return discov1.IssuedAPIKey{}, err
	}
	if exists {
		err = r.Update(ctx, secret)
	} else {
		err = r.Create(ctx, secret)
	}
	if err != nil {
		// The key never reached its Secret: revoked now (or, after a crash, before the next).
		return discov1.IssuedAPIKey{}, errors.Join(err, r.Keys.RevokeAPIKey(ctx, tenantID, k.ID))
	}
	return discov1.IssuedAPIKey{Name: want.Name, ID: k.ID, SecretName: want.SecretName(), IssuedAt: metav1.NewTime(k.CreatedAt).Rfc3339Copy()}, nil
}

// revokeIssued revokes the active keys the controller issued under the entry's name.
func (r *TenantAPIKeyReconciler) revokeIssued(ctx context.Context, tenantID, name string) error {
	after := ""
	for {
		page, err := r.Keys.ListAPIKeys(ctx, tenantID, 100, after)
		if err != nil {
			return err
		}
		for _, k := range page {
			if k.Name == name && k.CreatedBy == apiKeyActor && k.RevokedAt == nil {
				if err := r.Keys.RevokeAPIKey(ctx, tenantID, k.ID); err != nil {
					return err
				}
			}
		}
		if len(page) < 100 {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// retire revokes a key whose entry left spec.apiKeys and deletes its Secret.
func (r *TenantAPIKeyReconciler) retire(ctx context.Context, t *discov1.Tenant, ns, tenantID string, k discov1.IssuedAPIKey) error {
	if err := r.revokeIssued(ctx, tenantID, k.Name); err != nil {
		return err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: k.SecretName, Namespace: ns}}
	if err := r.Reader.Get(ctx, client.ObjectKeyFromObject(secret), secret); err == nil && secret.Labels[discov1.LabelManagedBy] == "disco" {
		if err := r.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	r.Recorder.Eventf(t, nil, corev1.EventTypeNormal, "APIKeyRevoked", "RevokeAPIKey", "revoked API key %s (%s) and deleted its Secret", k.Name, k.ID)
	return nil
}

// scopesOf is the entry's scopes, sorted as the store keeps them; none means all.
func scopesOf(k discov1.TenantAPIKey) []string {
	s := k.Scopes
	if len(s) == 0 {
		s = discov1.APIKeyScopes
	}
	return slices.Compact(slices.Sorted(slices.Values(s)))
}

func (r *TenantAPIKeyReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&discov1.Tenant{}).Named("tenant-api-keys").Complete(r)
}
