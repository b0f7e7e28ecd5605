package data

import (
	"encoding/binary"
	"hash/maphash"
	"math"
)

// countDuplicateRows counts rows equal to some earlier row. Rows are keyed
// by a hash of their cells and compared exactly on a hash match, so memory
// is a map entry per distinct row rather than a copy of the data. Distinct
// rows whose hashes collide (rare) go to an overflow list.
func countDuplicateRows(f *Frame) int {
	seed := maphash.MakeSeed()
	return countDuplicateRowsBy(f, func(i int) uint64 { return hashRow(f, i, seed) })
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
