package datasets

import (
	"reflect"
	"testing"

	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/jsonshape"
)

// The profile the facade serves is the engine's profile (engine/data.Profile, the source of
// the field set, stored as the profile blob) plus the dataset's id, status and profiling
// time: the wire type must not drop or retype an engine field (issue 16).
func TestDatasetProfileMatchesEngine(t *testing.T) {
	wire := jsonshape.Paths(reflect.TypeFor[DatasetProfile](), nil)
	engine := jsonshape.Paths(reflect.TypeFor[data.Profile](), nil)
	if d := jsonshape.Diff(engine, wire, "dataset_id", "status", "profiled_at"); len(d) > 0 {
		t.Fatalf("engine/data.Profile (-) and the wire DatasetProfile (+) differ: %v", d)
	}
}
