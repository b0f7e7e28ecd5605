package resource

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/listindex"
)

// Get reads obj from the cache; an object the cache has not seen yet (just created
// through another replica, or the informer lags) is read from the API server.
func (k *Kit) Get(ctx context.Context, key client.ObjectKey, obj client.Object) error {
	err := k.Client.Get(ctx, key, obj)
	if apierrors.IsNotFound(err) {
		return k.APIReader.Get(ctx, key, obj)
	}
	return err
}

// cacheFirst is the client.Reader of a Kit: Get is Kit.Get, List the cache's (with deep
// copies, unlike Kit.List, since what it finds is handed to the caller).
type cacheFirst struct{ k *Kit }

func (r cacheFirst) Get(ctx context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	return r.k.Get(ctx, key, obj)
}

func (r cacheFirst) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return r.k.Client.List(ctx, list, opts...)
}

// AwaitCache waits (briefly) until the cache holds obj as written or a later version of
// it: obj carries the resource version its write returned (listindex.VersionReached
// compares them). A version from before the write is not enough, however much it differs
// from the one read. Lists come from the cache, so without this a client that creates and
// then lists would not find what it just made. Not found means the cache has not seen the
// object yet, so the wait goes on; any other error of the cache ends it, as waiting would
// not change the answer.
func (k *Kit) AwaitCache(ctx context.Context, obj client.Object) {
	key := client.ObjectKeyFromObject(obj)
	written := obj.GetResourceVersion()
	fresh := obj.DeepCopyObject().(client.Object)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_ = wait.PollUntilContextCancel(ctx, 5*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if err := k.Client.Get(ctx, key, fresh); apierrors.IsNotFound(err) {
			return false, nil
		} else if err != nil {
			return false, err
		}
		return listindex.VersionReached(fresh.GetResourceVersion(), written), nil
	})
	// The claim index is fed by the same informer, just after the cache's store.
	if _, ok := obj.(*discov1.Claim); ok && k.ClaimIndex != nil {
		k.ClaimIndex.Await(ctx, key.Namespace, key.Name, written)
	}
}

// List reads a list from the cache without deep-copying every object: list handlers only
// read what they list, and copying a project's 100,000 claims per page would dominate the
// request.
func (k *Kit) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return k.Client.List(ctx, list, append(opts, client.UnsafeDisableDeepCopy)...)
}
