package patch

import "testing"

// Only the resourceVersion of optimistic locking makes a patch empty; anything else, an
// explicit null included, is a change.
func TestEmpty(t *testing.T) {
	for patch, want := range map[string]bool{
		`{}`:                                   true,
		`{"metadata":{"resourceVersion":"7"}}`: true,
		`{"metadata":{"resourceVersion":"7"},"status":{"phase":"exhausted"}}`: false,
		`{"metadata":{"resourceVersion":"7","labels":{"a":"b"}}}`:             false,
		`{"status":{"conditions":null}}`:                                      false,
		`not json`:                                                            false,
	} {
		if got := Empty([]byte(patch)); got != want {
			t.Errorf("Empty(%s) = %v, want %v", patch, got, want)
		}
	}
}
