package runexec

import (
	"context"
	"errors"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

func testScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return scheme
}

type ctxKey struct{}

// The Job executor works under the caller's context (issue 16 item 3: no
// context.Background()) and returns why it could not take a run.
func TestJobExecutorUsesTheCallersContextAndReturnsErrors(t *testing.T) {
	run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: "run-a", Namespace: "disco-t", UID: "u"}}
	refused := errors.New("the API server refused the Job")
	var foreign []string
	check := func(ctx context.Context, what string) {
		if ctx.Value(ctxKey{}) != "reconcile" {
			foreign = append(foreign, what)
		}
	}
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(run).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			check(ctx, "get")
			return c.Get(ctx, key, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			check(ctx, "create")
			if _, job := obj.(*batchv1.Job); job {
				return refused
			}
			return c.Create(ctx, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			check(ctx, "delete")
			return c.Delete(ctx, obj, opts...)
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			check(ctx, "apply")
			return nil
		},
	}).Build()
	x := &JobExecutor{Client: c, Image: "disco:test", BlobURL: "file:///blobs"}
	ctx := context.WithValue(context.Background(), ctxKey{}, "reconcile")
	key := client.ObjectKeyFromObject(run)

	started, err := x.Submit(ctx, run)
	if started || !errors.Is(err, refused) {
		t.Fatalf("Submit = %v, %v; want false and the API server's error", started, err)
	}
	if x.Active(ctx, key) {
		t.Error("a run without a Job is active")
	}
	if err := x.Cancel(ctx, key); err != nil {
		t.Errorf("cancelling a run without a Job: %v", err)
	}
	if len(foreign) > 0 {
		t.Errorf("requests made without the caller's context: %v", foreign)
	}
}

// The run execution writes the Run's status only when its mutation changed something:
// progress that did not move sends no request (cluster-api's diff before patching).
func TestExecutionWritesNothingWhenNothingChanged(t *testing.T) {
	run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: "run-a", Namespace: "disco-t"},
		Status: discov1.RunStatus{Phase: discov1.RunRunning}}
	patches := 0
	c := fake.NewClientBuilder().WithScheme(testScheme(t)).WithObjects(run).WithStatusSubresource(&discov1.Run{}).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			patches++
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}}).Build()
	e := &Execution{Client: c}
	ctx := context.Background()

	if err := e.patchStatus(ctx, run, func(r *discov1.Run) { r.Status.Phase = discov1.RunRunning }); err != nil {
		t.Fatal(err)
	}
	if patches != 0 {
		t.Fatalf("an unchanged status sent %d patches, want none", patches)
	}
	if err := e.patchStatus(ctx, run, func(r *discov1.Run) { r.Status.Message = "going" }); err != nil {
		t.Fatal(err)
	}
	if patches != 1 || run.Status.Message != "going" {
		t.Fatalf("a changed status sent %d patches (want 1), run message %q", patches, run.Status.Message)
	}
}
