package blob_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/discolab/disco/internal/blob"
)

const (
	runName = "run-abcdefghijklmnopqrstuvwxyz"
	tenantA = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	tenantB = "ten_bbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestRunKeysNameTenantNamespaceAndUID(t *testing.T) {
	a := blob.RunRef{TenantID: tenantA, Namespace: "disco-a", Name: runName, UID: "uid-1"}
	b := blob.RunRef{TenantID: tenantB, Namespace: "disco-b", Name: runName, UID: "uid-2"}
	if a.Results() == b.Results() || a.Artifact("art_x", "fit.svg") == b.Artifact("art_x", "fit.svg") {
		t.Fatalf("same-named runs of two tenants share keys: %s", a.Results())
	}
	if got := a.Results(); got != "runs/"+tenantA+"/disco-a/"+runName+"/uid-1/results.json" {
		t.Fatalf("results key %s", got)
	}
	for _, key := range []string{a.Results(), a.Artifact("art_x", "fit.svg")} {
		if !a.Owns(key) || b.Owns(key) {
			t.Errorf("ownership of %s: a %v b %v", key, a.Owns(key), b.Owns(key))
		}
	}
	for _, key := range []string{
		b.Results(),
		a.Prefix() + "../../../../" + tenantB + "/disco-b/" + runName + "/uid-2/results.json",
		a.Prefix() + "x//y",
		"datasets/ds-x/data.csv",
		blob.LegacyRunResultsKey(runName),
	} {
		if a.Owns(key) {
			t.Errorf("a owns %s", key)
		}
	}
	if (blob.RunRef{Namespace: "disco-a", Name: runName, UID: "u"}).Owns("runs//disco-a/" + runName + "/u/results.json") {
		t.Error("a run without a tenant owns keys")
	}
}

func TestGetRunRefusesForeignKeysAndReadsTheStoredSize(t *testing.T) {
	b, _ := openTemp(t)
	ctx := context.Background()
	victim := blob.RunRef{TenantID: tenantB, Namespace: "disco-b", Name: runName, UID: "uid-b"}
	if err := b.Put(ctx, victim.Results(), []byte(`{"secret":true}`)); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "datasets/ds-b/data.csv", []byte("x,y\n1,2\n")); err != nil {
		t.Fatal(err)
	}
	attacker := blob.RunRef{TenantID: tenantA, Namespace: "disco-a", Name: runName, UID: "uid-a"}
	for _, key := range []string{victim.Results(), "datasets/ds-b/data.csv", attacker.Prefix() + "../x"} {
		if _, _, err := b.GetRun(ctx, attacker, key); !errors.Is(err, blob.ErrForeignKey) {
			t.Errorf("GetRun(%s) = %v, want ErrForeignKey", key, err)
		}
	}
	rc, size, err := b.GetRun(ctx, victim, victim.Results())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(rc)
	rc.Close()
	if size != int64(len(body)) || string(body) != `{"secret":true}` {
		t.Fatalf("size %d body %q", size, body)
	}
	if _, _, err := b.GetRun(ctx, victim, victim.Artifact("art_missing", "x.svg")); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("missing own blob: %v", err)
	}
}

func TestGetRunReadsLegacyKeysOnlyOfTheRunThatWroteThem(t *testing.T) {
	b, _ := openTemp(t)
	ctx := context.Background()
	legacyArtifact := blob.LegacyRunPrefix(runName) + "artifacts/art_x-fit.svg"
	created := time.Now().Add(-time.Hour)
	if err := b.Put(ctx, legacyArtifact, []byte("<svg>")); err != nil {
		t.Fatal(err)
	}
	owner := blob.RunRef{TenantID: tenantA, Namespace: "disco-a", Name: runName, UID: "u1",
		Created: created, StatusResultsKey: blob.LegacyRunResultsKey(runName)}
	rc, size, err := b.GetRun(ctx, owner, legacyArtifact)
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if size != 5 {
		t.Fatalf("size %d", size)
	}

	refused := map[string]blob.RunRef{}
	// Executed under the scoped layout: its legacy prefix is not its own.
	scoped := owner
	scoped.StatusResultsKey = owner.Results()
	refused["scoped run"] = scoped
	// A same-named run created after the blob was written (another tenant's copy).
	late := owner
	late.TenantID, late.Namespace, late.Created = tenantB, "disco-b", time.Now().Add(time.Hour)
	refused["run created later"] = late
	// A human-chosen name could have been any tenant's.
	human := owner
	human.Name, human.StatusResultsKey = "signalling", blob.LegacyRunResultsKey("signalling")
	refused["human name"] = human
	for why, r := range refused {
		key := legacyArtifact
		if r.Name != runName {
			key = blob.LegacyRunPrefix(r.Name) + "artifacts/art_x-fit.svg"
			if err := b.Put(ctx, key, []byte("<svg>")); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := b.GetRun(ctx, r, key); !errors.Is(err, blob.ErrForeignKey) {
			t.Errorf("%s: GetRun = %v, want ErrForeignKey", why, err)
		}
	}
	if _, _, err := b.GetRun(ctx, owner, blob.LegacyRunPrefix("run-bbbbbbbbbbbbbbbbbbbbbbbbbb")+"results.json"); !errors.Is(err, blob.ErrForeignKey) {
		t.Errorf("another run's legacy key: %v", err)
	}
}
