package ids

import "testing"

func TestNewIsValidAndRoundTrips(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := New(Project)
		if !Valid(Project, id) {
			t.Fatalf("New produced invalid id %q", id)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
		if got := FromName(ToName(id)); got != id {
			t.Fatalf("round trip %q -> %q", id, got)
		}
	}
}

func TestValidRejects(t *testing.T) {
	for _, id := range []string{"", "proj_", "camp_abcdefghijklmnopqrstuvwxyz", "proj_ABCDEFGHIJKLMNOPQRSTUVWXYZ", "proj_abcdefghijklmnopqrstuvwx", "proj_abcdefghijklmnopqrstuv01", "proj_../../../../etc/passwd"} {
		if Valid(Project, id) {
			t.Errorf("Valid(%q) = true", id)
		}
	}
}
