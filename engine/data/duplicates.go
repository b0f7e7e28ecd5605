package data

import (
	"encoding/binary"
	"math"

	"github.com/cespare/xxhash/v2"
)

// countDuplicateRows counts rows equal to some earlier row. Rows are keyed
// by a hash of their cells and compared exactly on a hash match, so memory
// is a map entry per distinct row rather than a copy of the data. Distinct
// rows whose hashes collide (rare) go to an overflow list.
func countDuplicateRows(f *Frame) int {
	return countDuplicateRowsBy(f, func(i int) uint64 { return hashRow(f, i) })
}

// countDuplicateRowsBy is countDuplicateRows with the row hash supplied, so
// tests can force collisions.
func countDuplicateRowsBy(f *Frame, hash func(row int) uint64) int {
	first := make(map[uint64]int, f.Rows) // hash -> first row with it
	var overflow map[uint64][]int         // hash -> later distinct rows with it
	duplicates := 0
	for i := range f.Rows {
		h := hash(i)
		k, seen := first[h]
		switch {
		case !seen:
			first[h] = i
		case rowsEqual(f, i, k):
			duplicates++
		default:
			dup := false
			for _, k := range overflow[h] {
				if rowsEqual(f, i, k) {
					dup = true
					break
				}
			}
			if dup {
				duplicates++
				continue
			}
			if overflow == nil {
				overflow = make(map[uint64][]int)
			}
			overflow[h] = append(overflow[h], i)
		}
	}
	return duplicates
}

// hashRow hashes row i so that rows rowsEqual calls equal hash alike.
func hashRow(f *Frame, i int) uint64 {
	var h rowHasher
	h.reset()
	for j := range f.Columns {
		c := &f.Columns[j]
		if c.DType == String {
			h.text(c.Strings[i])
		} else {
			h.number(c.Values[i])
		}
	}
	return h.sum()
}

// rowHasher hashes a row cell by cell with xxHash64, a fixed function, so
// the same file always gives the same profile. xxhash.Digest's Write never
// returns an error.
type rowHasher struct {
	d   xxhash.Digest
	buf [8]byte
}

func (h *rowHasher) reset() { h.d.Reset() }

// text hashes a string cell ("" for null); the length prefix keeps
// ("ab","c") and ("a","bc") apart.
func (h *rowHasher) text(s string) {
	binary.LittleEndian.PutUint64(h.buf[:], uint64(len(s)))
	_, _ = h.d.Write(h.buf[:])
	_, _ = h.d.WriteString(s)
}

// number hashes a numeric cell (NaN for null).
func (h *rowHasher) number(v float64) {
	binary.LittleEndian.PutUint64(h.buf[:], canonicalBits(v))
	_, _ = h.d.Write(h.buf[:])
}

func (h *rowHasher) sum() uint64 { return h.d.Sum64() }

// canonicalBits maps values that rowsEqual treats as equal (every NaN;
// 0 and -0) to the same bits.
func canonicalBits(v float64) uint64 {
	switch {
	case math.IsNaN(v):
		return math.Float64bits(math.NaN())
	case v == 0:
		return 0
	}
	return math.Float64bits(v)
}

// rowsEqual compares two rows cell by cell; nulls equal nulls.
func rowsEqual(f *Frame, a, b int) bool {
	for j := range f.Columns {
		c := &f.Columns[j]
		if c.DType == String {
			if c.Strings[a] != c.Strings[b] {
				return false
			}
			continue
		}
		x, y := c.Values[a], c.Values[b]
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			return false
		}
	}
	return true
}

// duplicateSampler counts duplicate rows of a stream from their 64-bit
// hashes in bounded memory. It keeps an occurrence count per distinct row
// hash; when more than limit distinct hashes are held it keeps only the
// hashes whose low `level` bits are zero, raising level as needed, and
// scales the duplicates among them by 2^level. Every copy of a row has the
// same hash, so a row is either sampled with all its copies or not at all:
// this is distinct sampling (Gibbons, "Distinct sampling for
// highly-accurate answers to distinct values queries", VLDB 2001), and the
// count is exact while level is 0. Two distinct rows with the same hash
// count as duplicates; with n distinct rows that happens with probability
// about n²/2⁶⁵.
type duplicateSampler struct {
	counts map[uint64]uint32
	level  uint
	limit  int
}

func newDuplicateSampler(limit int) *duplicateSampler {
	return &duplicateSampler{counts: make(map[uint64]uint32), limit: limit}
}

func (d *duplicateSampler) add(h uint64) {
	if h&(1<<d.level-1) != 0 {
		return
	}
	if n := d.counts[h]; n < math.MaxUint32 {
		d.counts[h] = n + 1
	}
	for len(d.counts) > d.limit {
		d.level++
		mask := uint64(1)<<d.level - 1
		for k := range d.counts {
			if k&mask != 0 {
				delete(d.counts, k)
			}
		}
	}
}

// duplicates is the (estimated, when level > 0) number of duplicate rows.
func (d *duplicateSampler) duplicates() int {
	n := 0
	for _, c := range d.counts {
		n += int(c) - 1
	}
	return n << d.level
}
