package neural

import (
	"slices"
	"strings"
	"testing"
)

func TestParseBackbone(t *testing.T) {
	good := map[string][]int{
		"":             {64, 64},
		"mlp-2x64":     {64, 64},
		"mlp-64-32":    {64, 32},
		"mlp-3x32":     {32, 32, 32},
		"mlp-16":       {16},
		" mlp-1x1024 ": {1024}, //nolint:gocritic // the spaces check that ParseBackbone trims its input
		"mlp-8x4":      {4, 4, 4, 4, 4, 4, 4, 4},
	}
	for in, want := range good {
		got, err := ParseBackbone(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseBackbone(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := []string{"mlp", "mlp-", "cnn-2x64", "mlp-2x", "mlp-x64", "mlp-0x64", "mlp-9x8",
		"mlp-2x1025", "mlp-64--32", "mlp-64-0", "mlp-a-b", "MLP-2x64", "mlp-2x64x3", "mlp-1-2-3-4-5-6-7-8-9"}
	for _, in := range bad {
		got, err := ParseBackbone(in)
		if err == nil {
			t.Errorf("ParseBackbone(%q) = %v, want error", in, got)
			continue
		}
		if !strings.Contains(err.Error(), "mlp-<depth>x<width>") || !strings.Contains(err.Error(), "mlp-<width>-<width>") {
			t.Errorf("ParseBackbone(%q) error %q does not name the accepted forms", in, err)
		}
	}
}

func TestParseBackboneDefaultIsACopy(t *testing.T) {
	got, _ := ParseBackbone("")
	got[0] = 1
	if DefaultHidden[0] != 64 {
		t.Fatal("ParseBackbone returned DefaultHidden itself; callers can corrupt it")
	}
}
