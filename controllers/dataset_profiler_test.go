package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
)

// TestBlobProfiler profiles from a bucket through a private scratch file: files a killed
// process left are swept first, and none is left behind.
func TestBlobProfiler(t *testing.T) {
	ctx := context.Background()
	bucket, err := blob.Open(ctx, "file://"+filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "scratch")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, scratchPrefix+"left")
	if err := os.WriteFile(orphan, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	body := []byte("a,b\n1,x\n2,y\n2,y\n")
	key := blob.DatasetKey("ten_a", "ns", "proj_p", "ds_d")
	if err := bucket.Put(ctx, key, body); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	ds := &discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "ds-d", Namespace: "ns", UID: "u"},
		Spec: discov1.DatasetSpec{Format: "csv", BlobKey: key, SizeBytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}}
	p := &BlobProfiler{Blob: bucket, ScratchDir: dir}
	profileKey := blob.DatasetProfileKey("ten_a", "ns", ds.Name, string(ds.UID))
	keys := DatasetKeys{Profile: profileKey}
	res, err := p.Profile(ctx, ds, keys)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 3 || res.Columns != 2 || strings.Join(res.Variables, ",") != "a,b" || res.ProfileKey != profileKey {
		t.Fatalf("result %+v", res)
	}
	if ok, _ := bucket.Exists(ctx, profileKey); !ok {
		t.Fatal("no profile stored")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("scratch files left: %v", entries)
	}

	ds.Spec.SHA256 = strings.Repeat("0", 64)
	_, err = p.Profile(ctx, ds, keys)
	var pe *ProfileError
	if !errors.As(err, &pe) || pe.Reason != discov1.ReasonChecksumMismatch {
		t.Fatalf("wrong hash: %v", err)
	}
	ds.Spec.BlobKey = blob.DatasetKey("ten_a", "ns", "proj_p", "ds_missing")
	if _, err = p.Profile(ctx, ds, keys); !errors.As(err, &pe) || pe.Reason != discov1.ReasonBlobMissing {
		t.Fatalf("missing blob: %v", err)
	}
}
