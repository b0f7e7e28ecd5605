package ledger

import "testing"

// FuzzParseCheckpoint: a checkpoint file a client kept, or an attacker crafted, never
// crashes the parser, and one that parses has a non-negative size (C2SP tlog-checkpoint).
// `go test` runs the seeds.
func FuzzParseCheckpoint(f *testing.F) {
	for _, s := range []string{
		"disco-ledger/proj_abc\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
		"disco-ledger/proj_abc\n-1\nAAAA\n", "\n\n\n", "x\n99999999999999999999999\n=\n", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseCheckpoint(text)
		if err == nil && c.Size < 0 {
			t.Fatalf("parsed a negative size from %q", text)
		}
	})
}
