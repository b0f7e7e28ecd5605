package controllers

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/datasource"
)

// A source that never finishes sending (an object store that stalls after its headers)
// holds the profiler for FetchTimeout at most: the dataset is told the source is
// unavailable, and nothing is stored under the key.
func TestSourceFetchEndsAtItsDeadline(t *testing.T) {
	release := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000000")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("x,y\n1,2\n"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stall.Close()
	defer close(release)

	b, err := blob.Open(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := &BlobProfiler{Blob: b, Sources: datasource.Opener{S3Endpoints: []string{stall.URL}}, FetchTimeout: 2 * time.Second}
	ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "slow", Namespace: "team-a"},
		Spec: discov1.DatasetSpec{Source: &discov1.DatasetSource{URL: "s3://lab/slow.csv?region=eu-west-1&use_path_style=true&endpoint=" + stall.URL}}}

	done := make(chan error, 1)
	go func() {
		_, err := p.importSource(context.Background(), ds, "datasets/ten_x/team-a/sources/slow/data")
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the fetch of a stalled source did not end at its deadline")
	}
	var unavailable *SourceUnavailableError
	if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "did not arrive within 2s") {
		t.Fatalf("err = %v, want SourceUnavailableError naming the deadline", err)
	}
	if ok, _ := b.Exists(context.Background(), "datasets/ten_x/team-a/sources/slow/data"); ok {
		t.Fatal("a partial source was stored")
	}
}

// A file:// source that is a FIFO is refused at once instead of waiting for a writer.
func TestFIFOSourceIsRefusedWithoutWaiting(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "team-a"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "team-a", "pipe.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		rc, err := datasource.Opener{FileRoot: root}.Open(context.Background(), "team-a", &discov1.DatasetSource{URL: "file://" + fifo})
		if err == nil {
			_ = rc.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var refusal *datasource.Error
		if !errors.As(err, &refusal) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("err = %v, want a refusal: not a regular file", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("opening a FIFO source waited for a writer")
	}
}

// disco dev runs no pods, so nothing there can mount a claim: a dataset from a claim fails
// at once, saying so and what to use instead, rather than waiting for a Job that never runs.
func TestClaimSourceWithoutPodsFailsSayingWhy(t *testing.T) {
	r := &DatasetReconciler{} // no Fetcher, as disco dev's manager
	ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "drops", Namespace: "lab"}, Spec: discov1.DatasetSpec{
		Source: &discov1.DatasetSource{PersistentVolumeClaim: &discov1.PVCFileRef{ClaimName: "data", Path: "x.csv"}}}}
	done, res, err := r.fetchFromClaim(context.Background(), ds, "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa")
	if done || err != nil || res.RequeueAfter != 0 {
		t.Fatalf("done %v, result %+v, error %v; want a failed dataset", done, res, err)
	}
	if ds.Status.Phase != discov1.DatasetFailed || !strings.Contains(ds.Status.Message, "no pod can mount a PersistentVolumeClaim") {
		t.Errorf("status %+v", ds.Status)
	}
}
