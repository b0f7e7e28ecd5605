package patch

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// Only the resourceVersion of optimistic locking makes a patch empty; anything else, an
// explicit null included, is a change.
func TestEmpty(t *testing.T) {
	for patch, want := range map[string]bool{
		`{}`:                                   true,
		`{"metadata":{"resourceVersion":"7"}}`: true,
		`{"metadata":{"resourceVersion":"7"},"status":{"phase":"exhausted"}}`: false,
		`{"metadata":{"resourceVersion":"7","labels":{"a":"b"}}}`:             false,
		`{"status":{"conditions":null}}`:                                      false,
		`not json`:                                                            false,
	} {
		if got := Empty([]byte(patch)); got != want {
			t.Errorf("Empty(%s) = %v, want %v", patch, got, want)
		}
	}
}

// Object and Status send nothing when the object did not change, and one merge patch of
// the changes when it did.
func TestWritesOnlyChanges(t *testing.T) {
	ctx := context.Background()
	stored := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}}
	patches := 0
	c := fake.NewClientBuilder().WithObjects(stored).WithInterceptorFuncs(interceptor.Funcs{
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			patches++
			return c.Patch(ctx, obj, p, opts...)
		},
	}).Build()
	obj := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), obj); err != nil {
		t.Fatal(err)
	}
	before := obj.DeepCopy()
	if err := Object(ctx, c, before, obj); err != nil || patches != 0 {
		t.Fatalf("an unchanged object: %d patches, err %v", patches, err)
	}
	obj.Labels = map[string]string{"a": "b"}
	if err := Object(ctx, c, before, obj); err != nil || patches != 1 {
		t.Fatalf("a changed object: %d patches, err %v", patches, err)
	}
	got := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(stored), got); err != nil || got.Labels["a"] != "b" {
		t.Fatalf("stored labels %v, err %v", got.Labels, err)
	}
	// The patch is optimistic-locked: a write from a stale read is refused.
	stale := before.DeepCopy()
	stale.Labels = map[string]string{"c": "d"}
	if err := Object(ctx, c, before, stale); !apierrors.IsConflict(err) {
		t.Fatalf("a patch from a stale read: %v, want a conflict", err)
	}
}
