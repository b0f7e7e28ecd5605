package blob

import "testing"

func TestDatasetKeysStayUnderTheirTenant(t *testing.T) {
	key := DatasetKey("ten_a", "disco-ten-a", "proj_p", "ds_d")
	profile := DatasetProfileKey("ten_a", "disco-ten-a", "ds-d", "uid-1")
	source := DatasetSourceKey("ten_a", "disco-ten-a", "ds-d", "uid-1")
	for _, k := range []string{key, profile, source} {
		if err := ValidateKey(k); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if !UnderDatasetPrefix("ten_a", "disco-ten-a", k) {
			t.Errorf("%s is not under its own tenant", k)
		}
		if UnderDatasetPrefix("ten_b", "disco-ten-b", k) || UnderDatasetPrefix("ten_a", "other-ns", k) {
			t.Errorf("%s is under another tenant", k)
		}
	}
	for _, k := range []string{
		"datasets/ten_a/disco-ten-a/",                     // the prefix itself
		"datasets/ten_a/disco-ten-a/../../ten_b/x/data",   // escapes
		"datasets/ten_a/disco-ten-a//x",                   // empty segment
		"s3://bucket/datasets/ten_a/disco-ten-a/x",        // a URL
		"/datasets/ten_a/disco-ten-a/x",                   // absolute
		LegacyDatasetKey("proj_p", "ds_d"),                // the earlier layout
		LegacyDatasetProfileKey("ds-d"),                   // the earlier layout
		"datasets/ten_a/disco-ten-a-other/proj_p/ds/data", // a namespace sharing the prefix
	} {
		if UnderDatasetPrefix("ten_a", "disco-ten-a", k) {
			t.Errorf("%q counts as under the tenant's prefix", k)
		}
	}
	if source == DatasetSourceKey("ten_a", "disco-ten-a", "ds-d", "uid-2") || source == key || source == profile {
		t.Error("a recreated dataset's source, an upload and a profile must not share a key")
	}
	if DatasetPrefix("", "ns") != "" || DatasetPrefix("a/b", "ns") != "" || DatasetPrefix("t", "..") != "" {
		t.Error("a prefix with an empty or multi-segment part must be empty")
	}
	if UnderDatasetPrefix("", "", "datasets/x") {
		t.Error("no key is under an empty prefix")
	}
}

func TestDatasetOwnsProfileKey(t *testing.T) {
	own := DatasetProfileKey("ten_a", "ns-a", "signals", "uid")
	random := "ds-abcdefghijklmnopqrstuvwxyz"
	for _, c := range []struct {
		name, key string
		want      bool
	}{
		{"signals", own, true},
		{random, LegacyDatasetProfileKey(random), true},                           // the earlier layout, random name
		{"signals", LegacyDatasetProfileKey("signals"), false},                    // the earlier layout, human name
		{random, LegacyDatasetProfileKey("ds-bbbbbbbbbbbbbbbbbbbbbbbbbb"), false}, // another dataset's
		{"signals", DatasetProfileKey("ten_b", "ns-b", "signals", "uid"), false},  // another tenant's
		{random, "datasets/" + random + "/../ds-bbbbbbbbbbbbbbbbbbbbbbbbbb/profile.json", false},
	} {
		if got := DatasetOwnsProfileKey("ten_a", "ns-a", c.name, c.key); got != c.want {
			t.Errorf("DatasetOwnsProfileKey(%s, %q) = %v, want %v", c.name, c.key, got, c.want)
		}
	}
}
