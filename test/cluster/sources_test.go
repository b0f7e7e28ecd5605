package cluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDatasetFromAClaim declares a Dataset whose file is on a PersistentVolumeClaim, as a
// lab keeps its instrument output on a volume (issue 14, item 7): the fetch Job's pod
// mounts the claim on the node, copies the file, and the Dataset becomes ready with the
// hash of the file on the volume. A symbolic link on the volume that points off it (at
// the node's own files) fails the dataset instead of reading them.
func TestDatasetFromAClaim(t *testing.T) {
	e := cluster(t)
	done := phase(t, "dataset fetched from a PersistentVolumeClaim")
	defer done()
	const ns = "disco-claims-lab"
	// The volume is a directory on the node: a PersistentVolume bound to the claim in advance,
	// as an admin provisions one by hand.
	dir := filepath.Join(e.dir, "pv", "claims-lab")
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	body := []byte("t,d\n")
	for i := 1; i <= 60; i++ {
		s := float64(i) / 10
		body = append(body, fmt.Sprintf("%g,%g\n", s, 4.905*s*s)...)
	}
	if err := os.WriteFile(filepath.Join(dir, "runs", "drop.csv"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(filepath.Join(dir, "hostname.csv"))
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "hostname.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // the pod reads as its non-root user
		t.Fatal(err)
	}
	manifests := fmt.Sprintf(`apiVersion: discovery.disco.dev/v1alpha1
kind: Tenant
metadata: {name: claims-lab}
spec: {tier: team}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: claims-lab-data}
spec:
  capacity: {storage: 10Mi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: disco-test-manual
  hostPath: {path: %q, type: Directory}
  claimRef: {namespace: %s, name: lab-data}
`, dir, ns)
	apply := func(yaml string) {
		t.Helper()
		f := filepath.Join(t.TempDir(), "m.yaml")
		if err := os.WriteFile(f, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		e.kubectlOn(t, "apply", "-f", f)
	}
	apply(manifests)
	t.Cleanup(func() {
		kubectl := filepath.Join("..", "..", "bin", "kubectl")
		_ = exec.Command(kubectl, "--kubeconfig", e.creds.Kubeconfig, "delete", "tenant", "claims-lab", "--wait=false").Run()
		_ = exec.Command(kubectl, "--kubeconfig", e.creds.Kubeconfig, "delete", "pv", "claims-lab-data", "--wait=false").Run()
	})
	e.kubectlOn(t, "wait", "--for=create", "namespace/"+ns, "--timeout=2m")
	apply(fmt.Sprintf(`apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: lab-data, namespace: %[1]s}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: disco-test-manual
  volumeName: claims-lab-data
  resources: {requests: {storage: 10Mi}}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Project
metadata: {name: free-fall, namespace: %[1]s}
spec: {description: Drops timed on the lab's instrument.}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Dataset
metadata: {name: drops-on-volume, namespace: %[1]s}
spec:
  projectRef: {name: free-fall}
  format: csv
  source:
    persistentVolumeClaim: {claimName: lab-data, path: /runs/drop.csv}
---
apiVersion: discovery.disco.dev/v1alpha1
kind: Dataset
metadata: {name: off-the-volume, namespace: %[1]s}
spec:
  projectRef: {name: free-fall}
  format: csv
  source:
    persistentVolumeClaim: {claimName: lab-data, path: hostname.csv}
`, ns))

	e.kubectlOn(t, "-n", ns, "wait", "--for=jsonpath={.status.phase}=ready", "dset/drops-on-volume", "--timeout=5m")
	sum := sha256.Sum256(body)
	if got := e.kubectlOn(t, "-n", ns, "get", "dset", "drops-on-volume", "-o", "jsonpath={.status.source.sha256} {.status.rows}"); got != hex.EncodeToString(sum[:])+" 60" {
		t.Errorf("the dataset's hash and rows: %q, want the file's %x and 60", got, sum)
	}
	if job := e.kubectlOn(t, "-n", ns, "get", "job", "fetch-drops-on-volume", "-o", "jsonpath={.status.succeeded}"); job != "1" {
		t.Errorf("the fetch Job's pods succeeded: %q, want 1", job)
	}

	e.kubectlOn(t, "-n", ns, "wait", "--for=jsonpath={.status.phase}=failed", "dset/off-the-volume", "--timeout=5m")
	msg := e.kubectlOn(t, "-n", ns, "get", "dset", "off-the-volume", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].reason}: {.status.message}`)
	if !strings.HasPrefix(msg, "SourceRefused: ") || !strings.Contains(msg, "leads outside the PersistentVolumeClaim lab-data") {
		t.Errorf("a link off the volume: %q, want SourceRefused saying it leads outside the claim", msg)
	}

	// Deleting the tenant takes its namespace with everything in it: the project's and the
	// datasets' finalizers run with the manager's own, least-privilege RBAC.
	e.kubectlOn(t, "delete", "tenant", "claims-lab", "--wait=false")
	e.kubectlOn(t, "wait", "--for=delete", "namespace/"+ns, "--timeout=3m")
}
