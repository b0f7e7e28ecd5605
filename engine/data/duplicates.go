package data

import (
	"encoding/binary"
	"hash/maphash"
	"math"
)

// countDuplicateRows counts rows equal to some earlier row. Rows are
// bucketed by a hash of their cells and compared exactly within a bucket,
// so memory is a few words per distinct row rather than a copy of the data.
func countDuplicateRows(f *Frame) int {
	seed := maphash.MakeSeed()
	buckets := make(map[uint64][]int, f.Rows)
	duplicates := 0
	for i := range f.Rows {
		h := hashRow(f, i, seed)
		dup := false
		for _, k := range buckets[h] {
			if rowsEqual(f, i, k) {
				dup = true
				break
			}
		}
		if dup {
			duplicates++
			continue
		}
		buckets[h] = append(buckets[h], i)
	}
	return duplicates
}

func hashRow(f *Frame, i int, seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var buf [8]byte
	for j := range f.Columns {
		c := &f.Columns[j]
		if c.DType == String {
			// Length prefix keeps ("ab","c") and ("a","bc") apart.
			binary.LittleEndian.PutUint64(buf[:], uint64(len(c.Strings[i])))
			h.Write(buf[:])
			h.WriteString(c.Strings[i])
			continue
		}
		binary.LittleEndian.PutUint64(buf[:], canonicalBits(c.Values[i]))
		h.Write(buf[:])
	}
	return h.Sum64()
}

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
