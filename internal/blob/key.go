package blob

import (
	"fmt"
	"strings"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/discolab/disco/internal/ids"
)

// maxKeyLen is S3's limit, so a key valid here is valid in every backend.
const maxKeyLen = 1024

// ValidateKey refuses keys that could leave the bucket's directory or mean different
// things in different backends: empty, absolute, with "." or ".." segments, empty
// segments ("a//b", trailing "/"), backslashes, control characters or invalid UTF-8.
func ValidateKey(key string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalidKey, key, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > maxKeyLen:
		return bad("longer than 1024 bytes")
	case !utf8.ValidString(key):
		return bad("not UTF-8")
	case strings.HasPrefix(key, "/"):
		return bad("absolute")
	case strings.Contains(key, `\`):
		return bad("contains a backslash")
	case len(key) >= 2 && key[1] == ':':
		return bad("looks like a drive path")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return bad("contains a control character")
		}
	}
	for _, seg := range strings.Split(key, "/") {
		switch seg {
		case "":
			return bad("empty path segment")
		case ".", "..":
			return bad("relative path segment")
		}
	}
	return nil
}

// segments reports whether every part is one non-empty key segment, so that a prefix
// built from them names one owner alone.
func segments(parts ...string) bool {
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.Contains(p, "/") {
			return false
		}
	}
	return true
}

// under reports whether key is a valid key strictly under prefix ("" has nothing under
// it). ValidateKey refuses "." and ".." segments, so a key that starts with the prefix
// stays under it.
func under(prefix, key string) bool {
	return prefix != "" && ValidateKey(key) == nil && strings.HasPrefix(key, prefix) && len(key) > len(prefix)
}

// randomName reports whether name is the object name of a random id of the given kind
// (ids.ToName), which no object of another tenant can have had by chance; human-chosen
// names can collide across tenants. Keys of the earlier layouts, which did not name the
// tenant, are trusted only for such names.
func randomName(kind, name string) bool {
	id := ids.FromName(name)
	return ids.Valid(kind, id) && ids.ToName(id) == name
}

// ---- Run keys (issue 14 item 3, issue 17 item 2) ----
//
// Every blob of a run lies under runs/<tenant id>/<namespace>/<run name>/<run uid>/. The
// tenant and namespace keep tenants apart (runs of two tenants may share a name); the
// object's uid keeps a run apart from an earlier run of the same name. Readers accept only
// keys under the run's own prefix: see RunRef and Bucket.GetRun.

// RunRefOf is the one builder of a run's RunRef: the run's blobs in the given tenant, with
// what decides whether a key of the earlier layout is the run's own (its creation time and
// its status.resultsKey). Every writer and reader of a run's blobs (the run execution, the
// controller reading results, the facade streaming artifacts) names them through it.
func RunRefOf(tenantID string, run metav1.Object, statusResultsKey string) RunRef {
	return RunRef{TenantID: tenantID, Namespace: run.GetNamespace(), Name: run.GetName(), UID: string(run.GetUID()),
		Created: run.GetCreationTimestamp().Time, StatusResultsKey: statusResultsKey}
}

// RunPrefix is the prefix of every blob of one run.
func RunPrefix(tenantID, namespace, runName, runUID string) string {
	return "runs/" + tenantID + "/" + namespace + "/" + runName + "/" + runUID + "/"
}

// RunResultsKey is where a run's results.json is stored.
func RunResultsKey(tenantID, namespace, runName, runUID string) string {
	return RunPrefix(tenantID, namespace, runName, runUID) + "results.json"
}

// RunArtifactKey is where one artifact of a run is stored.
func RunArtifactKey(tenantID, namespace, runName, runUID, artifactID, name string) string {
	return RunPrefix(tenantID, namespace, runName, runUID) + "artifacts/" + artifactID + "-" + name
}

// LegacyRunPrefix is where runs stored their blobs before keys named the tenant
// (runs/<name>/). Nothing is written there any more; it is read only for runs stored
// then (RunRef.OwnsLegacy).
func LegacyRunPrefix(runName string) string { return "runs/" + runName + "/" }

// LegacyRunResultsKey is results.json under LegacyRunPrefix.
func LegacyRunResultsKey(runName string) string { return LegacyRunPrefix(runName) + "results.json" }

// ---- Dataset keys (issue 14 item 3) ----
//
// Every blob of a tenant's datasets lies under datasets/<tenant id>/<namespace>/: uploaded
// files at <project id>/<dataset id>/data, fetched sources at
// sources/<dataset name>/<uid>/data, profiles at profiles/<dataset name>/<uid>.json
// (project ids start with "proj_", so they never meet). The Dataset controller refuses a
// spec.blobKey outside its tenant's prefix, and the facade reads profiles only from it.

// DatasetPrefix is the prefix of every dataset blob of one tenant namespace, or "" when a
// part is empty or not one key segment (so that nothing can be under it).
func DatasetPrefix(tenantID, namespace string) string {
	if !segments(tenantID, namespace) {
		return ""
	}
	return "datasets/" + tenantID + "/" + namespace + "/"
}

// DatasetKey is where the facade stores an uploaded dataset file.
func DatasetKey(tenantID, namespace, projectID, datasetID string) string {
	return DatasetPrefix(tenantID, namespace) + projectID + "/" + datasetID + "/data"
}

// DatasetProfileKey is where a Dataset's profile JSON is stored; the uid keeps a
// recreated Dataset of the same name from reading the old one's profile.
func DatasetProfileKey(tenantID, namespace, datasetName, datasetUID string) string {
	return DatasetPrefix(tenantID, namespace) + "profiles/" + datasetName + "/" + datasetUID + ".json"
}

// DatasetSourceKey is where the Dataset controller stores the file it fetched from the
// dataset's spec.source (issue 14, item 7); the uid keeps a recreated Dataset of the same
// name from reading the old one's file.
func DatasetSourceKey(tenantID, namespace, datasetName, datasetUID string) string {
	return DatasetPrefix(tenantID, namespace) + "sources/" + datasetName + "/" + datasetUID + "/data"
}

// DatasetSourceErrorKey is where the fetch Job of a dataset whose source is on a
// PersistentVolumeClaim writes why it could not copy the file (a JSON record), beside the
// file's own key: the Job's pod has no access to the Kubernetes API.
func DatasetSourceErrorKey(tenantID, namespace, datasetName, datasetUID string) string {
	return DatasetPrefix(tenantID, namespace) + "sources/" + datasetName + "/" + datasetUID + "/error.json"
}

// UnderDatasetPrefix reports whether key is a valid key under the tenant namespace's
// dataset prefix.
func UnderDatasetPrefix(tenantID, namespace, key string) bool {
	return under(DatasetPrefix(tenantID, namespace), key)
}

// LegacyDatasetKey is where the facade stored uploads before keys named the tenant
// (datasets/<project id>/<dataset id>/data). Nothing is written there any more.
func LegacyDatasetKey(projectID, datasetID string) string {
	return "datasets/" + projectID + "/" + datasetID + "/data"
}

// LegacyDatasetProfileKey is where profiles were stored before keys named the tenant
// (datasets/<dataset name>/profile.json). Nothing is written there any more.
func LegacyDatasetProfileKey(datasetName string) string {
	return "datasets/" + datasetName + "/profile.json"
}

// DatasetOwnsProfileKey reports whether key may hold the profile of the Dataset named name
// in the tenant namespace: a key under the tenant's prefix, or the earlier layout's key of
// a dataset whose name is a random dataset id (randomName). Earlier keys of human-chosen
// names could have been written by another tenant's dataset of the same name (issue 14
// item 3), so they are not trusted.
func DatasetOwnsProfileKey(tenantID, namespace, name, key string) bool {
	return UnderDatasetPrefix(tenantID, namespace, key) ||
		randomName(ids.Dataset, name) && key == LegacyDatasetProfileKey(name)
}
