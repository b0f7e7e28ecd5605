package data

import (
	"bytes"
	"io"
	"unicode/utf8"
)

// delimiterCandidates are the separators sniffDelimiter chooses among, in
// order of preference when the evidence ties.
var delimiterCandidates = []byte{',', '\t', ';', '|'}

const (
	sniffBytes = 64 << 10 // how much of the file the sniffer looks at
	sniffLines = 20       // how many lines it compares
)

// readSample returns up to sniffBytes from the start of r, and whether it
// is the whole file.
func readSample(r io.ReaderAt, size int64) ([]byte, bool, error) {
	n := min(size, sniffBytes)
	buf := make([]byte, n)
	got, err := r.ReadAt(buf, 0)
	if err != nil && (err != io.EOF || int64(got) != n) {
		return nil, false, err
	}
	return buf, n == size, nil
}

// looksBinary reports whether a sample of a text file is in fact binary: it
// holds a NUL byte or invalid UTF-8. A truncated rune at the end of a
// partial sample is not held against it.
func looksBinary(sample []byte, whole bool) bool {
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	if !whole {
		// Drop up to utf8.UTFMax-1 trailing bytes that may be a cut rune.
		for cut := 0; cut < utf8.UTFMax && len(sample) > 0; cut++ {
			if utf8.Valid(sample) {
				return false
			}
			sample = sample[:len(sample)-1]
		}
	}
	return !utf8.Valid(sample)
}

// sniffDelimiter picks the delimiter that splits the first lines of sample
// into the same number of fields as the header line, preferring the one that
// gives the most fields. If no candidate is consistent it takes the one most
// frequent in the header, and if none occurs at all (a single-column file)
// it returns ','. Delimiters inside double quotes are not counted.
func sniffDelimiter(sample []byte, whole bool) rune {
	lines := sampleLines(sample, whole)
	if len(lines) == 0 {
		return ','
	}
	best, bestCount, consistentFound := byte(','), 0, false
	for _, d := range delimiterCandidates {
		header := countUnquoted(lines[0], d)
		if header == 0 {
			continue
		}
		consistent := true
		for _, line := range lines[1:] {
			if countUnquoted(line, d) != header {
				consistent = false
				break
			}
		}
		switch {
		case consistent && (!consistentFound || header > bestCount):
			best, bestCount, consistentFound = d, header, true
		case !consistentFound && header > bestCount:
			best, bestCount = d, header
		}
	}
	return rune(best)
}

// sampleLines splits a sample into at most sniffLines non-empty lines,
// dropping a final line that the sample may have cut short.
func sampleLines(sample []byte, whole bool) [][]byte {
	if !whole {
		if i := bytes.LastIndexByte(sample, '\n'); i >= 0 {
			sample = sample[:i]
		}
	}
	var lines [][]byte
	for line := range bytes.SplitSeq(sample, []byte{'\n'}) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines = append(lines, line)
		if len(lines) == sniffLines {
			break
		}
	}
	return lines
}

// countUnquoted counts d in line outside double-quoted sections.
func countUnquoted(line []byte, d byte) int {
	n, quoted := 0, false
	for _, b := range line {
		switch {
		case b == '"':
			quoted = !quoted
		case b == d && !quoted:
			n++
		}
	}
	return n
}
