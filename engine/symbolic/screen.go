package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// screen keeps, of the terms offered to it, the k whose absolute Pearson
// correlation with a target is largest: sure independence screening (Fan &
// Lv 2008, J. R. Stat. Soc. B 70:849), which reduces a library far larger
// than the rows to a size a sparse regression can search while, under
// mild conditions, keeping every term of the true sparse model. Until k
// terms are offered it keeps them all, so a small library passes through
// unchanged. It holds at most k columns, whatever the number offered.
type screen struct {
	target []float64
	k      int
	kept   []screened
	offers int
}

type screened struct {
	order int // position among the offers, to return terms in offer order
	score float64
	term  libraryTerm
}

func newScreen(target []float64, k int) *screen {
	return &screen{target: target, k: k}
}

// offer considers term t with values col; col is copied if kept.
func (s *screen) offer(t tree, col []float64) {
	order := s.offers
	s.offers++
	score := math.Abs(stat.Correlation(col, s.target, nil))
	if math.IsNaN(score) {
		score = 0
	}
	if len(s.kept) < s.k {
		s.kept = append(s.kept, screened{order, score, libraryTerm{t: t, col: slices.Clone(col)}})
		return
	}
	worst := 0
	for x, e := range s.kept {
		if e.score < s.kept[worst].score {
			worst = x
		}
	}
	if score > s.kept[worst].score {
		s.kept[worst] = screened{order, score, libraryTerm{t: t, col: slices.Clone(col)}}
	}
}

// terms returns the kept terms in the order they were offered.
func (s *screen) terms() []libraryTerm {
	slices.SortFunc(s.kept, func(a, b screened) int { return a.order - b.order })
	out := make([]libraryTerm, len(s.kept))
	for x, e := range s.kept {
		out[x] = e.term
	}
	return out
}
