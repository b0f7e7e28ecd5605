package symbolic

// paretoFront keeps, for every complexity, the lowest-loss individual seen;
// its members are the ones no simpler individual beats.
type paretoFront struct {
	bySize []individual
	has    []bool
}

func (p *paretoFront) offer(ind *individual) {
	if ind.loss != ind.loss || ind.loss > 1e300 {
		return
	}
	c := ind.size
	for len(p.bySize) <= c {
		p.bySize = append(p.bySize, individual{})
		p.has = append(p.has, false)
	}
	if !p.has[c] || ind.loss < p.bySize[c].loss {
		p.bySize[c] = *ind
		p.has[c] = true
	}
}

func (p *paretoFront) merge(q *paretoFront) {
	for c, ok := range q.has {
		if ok {
			p.offer(&q.bySize[c])
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
