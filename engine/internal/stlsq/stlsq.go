// Package stlsq is the thresholding loop of sequentially thresholded least
// squares (STLSQ; Brunton, Proctor & Kutz 2016, PNAS 113:3932), shared by
// the sparse regressions of engine/symbolic, engine/conservation and
// engine/dynamics. Each brings its own least-squares solve (its own
// scaling, ridge and factorisation); the loop is the same.
package stlsq

import "math"

// Threshold runs STLSQ from support S: solve on the support, keep the
// terms whose weight is at least tau in absolute value, and repeat on what
// is kept until the support stops changing, for at most rounds solves.
// solve returns the weights of the terms of its support, in order, and
// false when it cannot solve. Threshold returns the last support (empty
// when nothing survived) and false when solve failed on it. S is not
// modified.
func Threshold(S []int, tau float64, rounds int, solve func(S []int) ([]float64, bool)) ([]int, bool) {
	for range rounds {
		if len(S) == 0 {
			break
		}
		w, ok := solve(S)
		if !ok {
			return S, false
		}
		var next []int
		for x, j := range S {
			if math.Abs(w[x]) >= tau {
				next = append(next, j)
			}
		}
		if len(next) == len(S) {
			break
		}
		S = next
	}
	return S, true
}
