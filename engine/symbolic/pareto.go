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
	bySize []kept
	has    []bool
	// alts[c] are the runners-up of complexity c, best first, each a
	// model other than bySize[c] and each other.
	alts [][]kept
}

// kept is an individual on the front with its tree's shape, hashed once.
type kept struct {
	individual
	shape uint64
}

// offer is called for every individual the search evaluates, so an
// individual that can enter neither the best nor the runners-up of its
// complexity returns before its tree is hashed.
func (p *paretoFront) offer(ind *individual) {
	if ind.loss != ind.loss || ind.loss > 1e300 {
		return
	}
	c := ind.size
	for len(p.bySize) <= c {
		p.bySize = append(p.bySize, kept{})
		p.has = append(p.has, false)
		p.alts = append(p.alts, nil)
	}
	if !p.has[c] {
		p.bySize[c], p.has[c] = kept{*ind, ind.t.shape()}, true
		return
	}
	best, alts := &p.bySize[c], p.alts[c]
	if ind.loss >= best.loss && len(alts) == frontDepth-1 && ind.loss >= alts[len(alts)-1].loss {
		return
	}
	k := kept{*ind, ind.t.shape()}
	switch {
	case sameModel(&k, best):
		if k.loss < best.loss {
			*best = k
		}
	case k.loss < best.loss:
		old := *best
		*best = k
		p.alts[c] = slices.DeleteFunc(alts, func(a kept) bool { return sameModel(&a, &k) })
		p.keepAlt(c, old)
	default:
		p.keepAlt(c, k)
	}
}

// sameModel reports whether two individuals are one model for the front:
// the same shape (their constants may differ), or the same loss to nine
// digits (a reordered sum or product, or another factor in front, which
// linear scaling absorbs).
func sameModel(x, y *kept) bool {
	return x.shape == y.shape || math.Abs(x.loss-y.loss) <= 1e-9*math.Max(x.loss, y.loss)
}

// keepAlt adds k to the runners-up of complexity c, replacing the same
// model if k is better, and keeps the best frontDepth−1.
func (p *paretoFront) keepAlt(c int, k kept) {
	alts := p.alts[c]
	if i := slices.IndexFunc(alts, func(a kept) bool { return sameModel(&a, &k) }); i >= 0 {
		if k.loss >= alts[i].loss {
			return
		}
		alts = slices.Delete(alts, i, i+1)
	}
	at, _ := slices.BinarySearchFunc(alts, k.loss, func(a kept, l float64) int { return cmpFloat(a.loss, l) })
	alts = slices.Insert(alts, at, k)
	if len(alts) > frontDepth-1 {
		alts = alts[:frontDepth-1]
	}
	p.alts[c] = alts
}

func (p *paretoFront) merge(q *paretoFront) {
	for c, ok := range q.has {
		if ok {
			p.offer(&q.bySize[c].individual)
			for i := range q.alts[c] {
				p.offer(&q.alts[c][i].individual)
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
		ind := p.bySize[c].individual
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
			out = append(out, p.bySize[c].individual)
			for _, a := range p.alts[c] {
				out = append(out, a.individual)
			}
		}
	}
	return out
}
