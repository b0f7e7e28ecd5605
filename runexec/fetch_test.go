package runexec

import (
	"strings"
	"testing"
)

func TestFetchJobNameFitsAPodLabel(t *testing.T) {
	if got := FetchJobName("sachs"); got != "fetch-sachs" {
		t.Errorf("FetchJobName(sachs) = %q", got)
	}
	long := strings.Repeat("a", 240)
	a, b := FetchJobName(long), FetchJobName(long+"b")
	if len(a) > 63 || len(b) > 63 || a == b {
		t.Errorf("long names %q and %q: want at most 63 characters and distinct", a, b)
	}
	if strings.HasSuffix(FetchJobName(strings.Repeat("a", 56)+"-"+strings.Repeat("b", 10)), "-") {
		t.Error("a cut name ends in -")
	}
}
