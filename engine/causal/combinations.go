package causal

// forEachSubset calls fn with every k-element subset of set, in
// lexicographic order of positions, until fn returns false. The slice passed
// to fn is reused between calls.
func forEachSubset(set []int, k int, fn func(subset []int) bool) {
	n := len(set)
	if k > n || k < 0 {
		return
	}
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i
	}
	sub := make([]int, k)
	for {
		for i, p := range idx {
			sub[i] = set[p]
		}
		if !fn(sub) {
			return
		}
		// Advance to the next combination.
		i := k - 1
		for i >= 0 && idx[i] == n-k+i {
			i--
		}
		if i < 0 {
			return
		}
		idx[i]++
		for m := i + 1; m < k; m++ {
			idx[m] = idx[m-1] + 1
		}
	}
}

// without returns set minus x, as a new slice.
func without(set []int, x int) []int {
	out := make([]int, 0, len(set))
	for _, v := range set {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

// containsAll reports whether every element of sub is in set (a membership
// mask).
func containsAll(set []bool, sub []int) bool {
	for _, v := range sub {
		if !set[v] {
			return false
		}
	}
	return true
}
