package symbolic

import (
	"math"
	"slices"
)

// frontDepth is how many individuals of different shapes paretoFront keeps
// for each complexity: the best and its runners-up.
//
// The search scores individuals on at most maxSearchRows rows, and with
// noise a look-alike of the law's size whose constants fit those rows'
// noise can beat the law there (m·c²·(c² + 0.37·exp(v) − 0.3) against
// m·c²/sqrt(1 − (v/c)²), Feynman I.48.2 at 1 % noise), although on all rows
// the law fits better. Keeping runners-up of other shapes lets finalize
// decide on all rows.
const frontDepth = 6

// paretoFront keeps, for every complexity, the lowest-loss individual seen
// and up to frontDepth−1 runners-up that are other models (sameModel); its
// members are the best of each complexity that no simpler one beats.
type paretoFront struct {
	bySize []individual
	has    []bool
	// alts[c] are the runners-up of complexity c, best first, each a
	// model other than bySize[c] and each other.
	alts [][]individual
}

func (p *paretoFront) offer(ind *individual) {
	if ind.loss != ind.loss || ind.loss > 1e300 {
		return
	}
	c := ind.size
	for len(p.bySize) <= c {
		p.bySize = append(p.bySize, individual{})
		p.has = append(p.has, false)
		p.alts = append(p.alts, nil)
	}
	if !p.has[c] {
		p.bySize[c], p.has[c] = *ind, true
		return
	}
	best := &p.bySize[c]
	if sameModel(ind, best) {
		if ind.loss < best.loss {
			*best = *ind
		}
		return
	}
	if ind.loss < best.loss {
		old := *best
		*best = *ind
		p.alts[c] = slices.DeleteFunc(p.alts[c], func(a individual) bool { return sameModel(&a, ind) })
		p.keepAlt(c, old)
		return
	}
	p.keepAlt(c, *ind)
}

// sameModel reports whether two individuals are one model for the front:
// the same shape (their constants may differ), or the same loss to nine
// digits (a reordered sum or product, or another factor in front, which
// linear scaling absorbs).
func sameModel(x, y *individual) bool {
	return x.t.shape() == y.t.shape() || math.Abs(x.loss-y.loss) <= 1e-9*math.Max(x.loss, y.loss)
}

// keepAlt adds ind to the runners-up of complexity c, replacing the same
// model if ind is better, and keeps the best frontDepth−1.
func (p *paretoFront) keepAlt(c int, ind individual) {
	alts := p.alts[c]
	if i := slices.IndexFunc(alts, func(a individual) bool { return sameModel(&a, &ind) }); i >= 0 {
		if ind.loss >= alts[i].loss {
			return
		}
		alts = slices.Delete(alts, i, i+1)
	}
	at, _ := slices.BinarySearchFunc(alts, ind.loss, func(a individual, l float64) int { return cmpFloat(a.loss, l) })
	alts = slices.Insert(alts, at, ind)
	if len(alts) > frontDepth-1 {
		alts = alts[:frontDepth-1]
	}
	p.alts[c] = alts
}

func (p *paretoFront) merge(q *paretoFront) {
	for c, ok := range q.has {
		if ok {
			p.offer(&q.bySize[c])
			for i := range q.alts[c] {
				p.offer(&q.alts[c][i])
			}
		}
	}
}

// members returns the non-dominated individuals, complexity ascending and
// loss strictly descending.
func (p *paretoFront) members() []individual {
	var out []individual
	for c, ok := range p.has {
		if !ok {
			continue
		}
		ind := p.bySize[c]
		if len(out) > 0 && ind.loss >= out[len(out)-1].loss {
			continue
		}
		out = append(out, ind)
	}
	return out
}

// all returns every individual kept, the best and the runners-up of each
// complexity, complexity ascending: the candidates finalize scores on all
// rows.
func (p *paretoFront) all() []individual {
	var out []individual
	for c, ok := range p.has {
		if ok {
			out = append(out, p.bySize[c])
			out = append(out, p.alts[c]...)
		}
	}
	return out
}
