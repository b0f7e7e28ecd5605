package resource

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// laggingCache answers Get with the resource versions given, one per call and the last
// from then on, as an informer cache catching up with writes does; "" is not found yet,
// "!" an error of the cache itself.
type laggingCache struct {
	client.Client
	versions []string
	gets     int
}

func (c *laggingCache) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	v := c.versions[min(c.gets, len(c.versions)-1)]
	c.gets++
	switch v {
	case "":
		return apierrors.NewNotFound(schema.GroupResource{Group: "disco.dev", Resource: "claims"}, key.Name)
	case "!":
		return errors.New("no informer for this kind")
	}
	obj.SetResourceVersion(v)
	return nil
}

// TestAwaitCacheWaitsForTheWrittenVersion: a write is answered once the cache holds the
// version written or a later one, so a read right after it sees it. A cache still at a
// version from before the write is not enough: a promotion writes the claim twice (tier,
// then status) after reading it, and its answer waits for the second write.
func TestAwaitCacheWaitsForTheWrittenVersion(t *testing.T) {
	for _, tc := range []struct {
		name     string
		versions []string
		written  string
		gets     int
	}{
		{"a promotion, read at 3, tier written at 4 and status at 5", []string{"3", "3", "4", "5", "6"}, "5", 4},
		{"a create the cache has not seen yet", []string{"", "", "7"}, "7", 3},
		{"a cache already past the write", []string{"9"}, "8", 1},
		{"a cache that cannot answer", []string{"!"}, "8", 1},
	} {
		c := &laggingCache{versions: tc.versions}
		k := &Kit{Client: c}
		claim := &discov1.Claim{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "c", ResourceVersion: tc.written}}
		k.AwaitCache(context.Background(), claim)
		if c.gets != tc.gets {
			t.Errorf("%s: returned after %d reads of the cache, want %d", tc.name, c.gets, tc.gets)
		}
	}
}
