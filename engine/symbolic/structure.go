package symbolic

import (
	"context"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
)

// Structure moves: separability and variable substitution (AI Feynman:
// Udrescu & Tegmark 2020, Sci. Adv. 6:eaay2631, "Symmetry" and
// "Separability"; AI Feynman 2.0, NeurIPS 2020, for the log form of
// multiplicative separability).
//
// When the cheap seeding passes leave the data unexplained, the search
// fits a smooth surrogate S of the data (smoother.go) and asks it two
// questions whose answers make the problem smaller:
//
//   - Separability: is y = f(A) + g(B), or y = f(A)·g(B), for a split of the
//     inputs into disjoint sets A and B? For a pair of rows r, s and the
//     crossed points (a_r, b_s), (a_s, b_r) the mixed difference
//     D = S(a_r, b_r) − S(a_r, b_s) − S(a_s, b_r) + S(a_s, b_s) vanishes for
//     every pair exactly when S is additively separable in A and B; on
//     log|S| it vanishes when S is multiplicatively separable. The split
//     holds when
//
//     RMS(D)/RMS(ΔS) ≤ separableTolerance + √(Σ var D_noise / Σ ΔS²),
//
//     where ΔS = S(a_r, b_r) − S(a_s, b_s) is the change between the two
//     rows, so the ratio is the interaction's share of the change, and the
//     second term allows for the surrogate's own error σ (smoother.sigma) at
//     the four points (var D_noise = 4σ², or σ²·Σ 1/S² on log|S|, where
//     pairs are weighted by the inverse of that variance), which grows with
//     noise in y. Pure noise gives no split because the surrogate must
//     first explain the data (smootherMinR2).
//   - Symmetry: does y depend on two inputs x_i, x_j only through
//     x_i − x_j, x_i + x_j, x_i·x_j or x_i/x_j? Then moving both along the
//     level set of that combination (x_i + δ, x_j + δ for the difference,
//     x_i·κ, x_j·κ for the ratio, and so on) leaves S unchanged, while
//     moving either alone does not. The symmetry holds when the RMS change
//     of S under the joint move is at most symmetryTolerance of the smaller
//     RMS change under the single moves, with the same allowance √2·σ for
//     the surrogate's error.
//
//   - Factor: do some inputs enter only through a monomial factor,
//     y = x_a^k_a·…·g(rest)? In the log-space power law their exponents are
//     then integers whatever g is, as the inputs are drawn independently;
//     this test needs no surrogate (factorSeeds).
//
// A split is searched as two smaller problems: the part on A is fitted to
// y − S(ā, b) (additive) or y/S(ā, b) (multiplicative), which is f(A) up to
// a constant, with the other inputs B at their means ā, b̄ in S and the
// data's own y elsewhere, so that the surrogate's error enters as noise in
// the other inputs and not as a smooth bias; the same for B. The parts'
// fronts are joined by + or × into seeds of the main search. A symmetry is
// searched as one problem with u = x_i ∘ x_j in place of x_i and x_j, and
// its models are written back with u replaced by x_i ∘ x_j, in the inputs'
// own columns; symmetries on disjoint pairs that hold about as clearly as
// the best one are substituted together (jointSymmetries). A factor M is
// searched as the problem y/M on the other inputs, on which the structure
// moves run first, and M times its models are seeds. The searches on the
// parts are full Fit calls, so a part may split or substitute again. As
// every seeding pass, the moves only add seeds: the main search scores
// them on the original data, and a wrong decomposition costs a seed, not
// the law.

const (
	// separableTolerance is the interaction share below which a split
	// holds; symmetryTolerance the same for a joint move.
	separableTolerance = 0.05
	symmetryTolerance  = 0.05
	// maxStructureVars bounds the inputs for which the surrogate's moves
	// run: the splits tested grow as 2^(d−1).
	maxStructureVars = 8
	// maxFactorVars bounds the inputs for which any move runs: the factor
	// move needs no surrogate, but the surrogate that decides whether the
	// moves run costs rows² per input, and the factor's search on the
	// other inputs is a full search.
	maxFactorVars = 10
	// factorTolerance is how far from an integer a power-law exponent may
	// be for its input to count as a factor of the law.
	factorTolerance = 0.05
	// structureProbes is the number of probe rows (and row pairs).
	structureProbes = 200
	// minProbePoints is the fewest probe rows a symmetry test needs inside
	// the data range after the move.
	minProbePoints = 20
	// structureGenerations bounds the generations of each part's search.
	structureGenerations = 200
	// partModels is how many models of each part's front (the chosen one
	// and the most accurate others) are joined into seeds.
	partModels = 3
	// sameSymmetryRatio is how much larger than the best symmetry's
	// joint-move ratio another's may be for both to be substituted.
	sameSymmetryRatio = 1.5
	// symmetryStep is the joint move, in standard deviations of the
	// smaller-spread input (of log|x| for products and ratios).
	symmetryStep = 0.25
)

// structureSeeds runs the structure moves and returns their seeds, or nil
// when they do not apply: fewer than two or more than maxFactorVars
// inputs, a seed that already fits y exactly or as well as the surrogate
// does, a surrogate that does not describe the data, or no factor, split
// or symmetry. The factor move runs
// first, within half the budget; the surrogate's moves run after it unless
// it explained y exactly, and only up to maxStructureVars inputs. budget
// bounds the searches on the smaller problems (0: no limit, the
// generation budget bounds them).
func structureSeeds(ctx context.Context, p *problem, opts Options, seeds []tree, budget time.Duration) []tree {
	d := len(p.g.vars)
	if d < 2 || d > maxFactorVars || p.timeUp() {
		return nil
	}
	ev := newEvaluator(p.cols, len(p.y))
	best := math.Inf(1)
	for _, t := range seeds {
		best = math.Min(best, evaluate(ev, p.y, t).loss)
	}
	if best <= exactNMSE*p.varY {
		return nil
	}
	s := fitSmoother(p.cols, p.g.vars, p.y, p.timeUp)
	if !s.usable() || best <= s.looMSE || p.timeUp() {
		return nil
	}
	// The factor move needs no surrogate, only the surrogate's word that
	// the seeds leave something to explain; when it explains y exactly
	// the surrogate's moves are not needed.
	start := time.Now()
	out := factorSeeds(ctx, p, opts, budget/2) // 0 stays 0: no limit
	for _, t := range out {
		best = math.Min(best, evaluate(ev, p.y, t).loss)
	}
	if budget > 0 {
		if budget -= time.Since(start); budget <= 0 {
			return out
		}
	}
	if best <= exactNMSE*p.varY || d > maxStructureVars || p.timeUp() {
		return out
	}
	pr := newProbe(s, p.cols, len(p.y))
	pr.stop = p.timeUp
	sp, split := pr.bestSplit()
	var sbs []symmetry
	if !p.timeUp() {
		sbs = pr.jointSymmetries()
	}
	// A split goes first; when symmetries hold too, it has half the
	// budget and they have the rest, unless its seeds are exact: a split
	// that holds only within the surrogate's error must not cost the
	// symmetry its search.
	if split && !p.timeUp() {
		splitBudget := budget
		if len(sbs) > 0 {
			splitBudget = budget / 2
		}
		start := time.Now()
		ss := splitSeeds(ctx, p, opts, s, sp, splitBudget)
		out = append(out, ss...)
		for _, t := range ss {
			best = math.Min(best, evaluate(ev, p.y, t).loss)
		}
		if best <= exactNMSE*p.varY || len(sbs) == 0 {
			return out
		}
		if budget > 0 {
			if budget -= time.Since(start); budget <= 0 {
				return out
			}
		}
	}
	if len(sbs) > 0 && !p.timeUp() {
		out = append(out, symmetrySeeds(ctx, p, opts, sbs, budget)...)
	}
	return out
}

// factorSeeds is the power-law factor move: when the log-space power law
// (powerlaw.go) gives some inputs exponents within factorTolerance of a
// nonzero integer, y = M·g(rest) with the monomial M of those inputs is
// tried: g is searched on the other inputs against y/M, and M times its
// models are the seeds. An input that enters only through a factor x^k
// has exponent k in log space whatever g is, because the inputs are drawn
// independently, while an input inside g gets a fractional one; this is
// multiplicative separability (Udrescu & Tegmark 2020) with one part a
// monomial, found without a surrogate, so that y/M carries no surrogate
// error (G·m1·m2 over a sum of squared differences; mom/(kb·T) times a
// sum).
func factorSeeds(ctx context.Context, p *problem, opts Options, budget time.Duration) []tree {
	vars, w, ok := powerLawFit(p, true)
	if !ok {
		return nil
	}
	pw := make([]float64, len(vars))
	var rest []int
	inFactor := map[int]bool{}
	for k, v := range vars {
		if r := math.Round(w[k]); r != 0 && math.Abs(w[k]-r) <= factorTolerance {
			pw[k] = r
			inFactor[v] = true
		}
	}
	for _, v := range p.g.vars {
		if !inFactor[v] {
			rest = append(rest, v)
		}
	}
	// All inputs in the factor is the power law itself, which its own pass
	// seeds.
	if len(inFactor) == 0 || len(rest) == 0 {
		return nil
	}
	m, ok := newTermBuilder(p.g).monomial(vars, pw)
	if !ok || !p.g.fits(m) {
		return nil
	}
	mv := newEvaluator(p.cols, len(p.y)).eval(m)
	z := make([]float64, len(p.y))
	for i := range z {
		z[i] = p.y[i] / mv[i]
	}
	if !finiteValues(z) || p.timeUp() {
		return nil
	}
	start := time.Now()
	q := p.reduced(rest, z, func() bool {
		return ctx.Err() != nil || (budget > 0 && time.Since(start) >= budget)
	})
	// The structure moves on y/M run first, ahead of the other seeding
	// passes that the search on it would run before them: a law of
	// differences under a factor needs the symmetry move on the smaller
	// problem, and those passes may use up its seeding time.
	gs := structureSeeds(ctx, q, opts, nil, budget/2) // 0 stays 0: no limit
	ev := newEvaluator(p.cols, len(p.y))
	exact := false
	for _, g := range gs {
		exact = exact || evaluate(ev, z, g).loss <= exactNMSE*q.varY
	}
	if !exact {
		left := time.Duration(0)
		if budget > 0 {
			if left = budget - time.Since(start); left <= 0 {
				left = -1
			}
		}
		if left >= 0 {
			// Each model is multiplied by M: one level and at least one
			// node more; M's own nodes often merge into the model's
			// quotient (M·(1/r²) is M/r²), so the seeds are checked
			// against the limits only after simplifying (fitting).
			gs = append(gs, subSearch(ctx, p, opts, rest, nil, z, left, 1, 1)...)
		}
	}
	var out []tree
	for _, g := range gs {
		out = append(out, append(append(m.clone(), g...), opNode(opMul)))
	}
	return fitting(p, out)
}

// reduced returns the problem of fitting z on the inputs vars of p's
// columns, with the same operators and limits, no units, and its own
// deadline.
func (p *problem) reduced(vars []int, z []float64, expired func() bool) *problem {
	g := *p.g
	g.vars = slices.Clone(vars)
	_, sd := stat.PopMeanStdDev(z, nil)
	q := &problem{cols: p.cols, y: z, varY: sd * sd, names: p.names, g: &g, s: p.s, expired: expired}
	q.setSearchRows(p.s.seed)
	return q
}

// probe holds the rows the structure tests evaluate the surrogate at.
type probe struct {
	s       *smoother
	pts     [][]float64 // probe points, in s.vars order
	partner []int       // each point's pair for the mixed differences
	f       []float64   // S at the points
	stop    func() bool // ends the tests early when true (may be nil)
}

func (pr *probe) stopped() bool { return pr.stop != nil && pr.stop() }

func newProbe(s *smoother, cols [][]float64, n int) *probe {
	m := min(n, structureProbes)
	pr := &probe{s: s, pts: make([][]float64, m), f: make([]float64, m)}
	for k := range pr.pts {
		i := k * n / m
		pr.pts[k] = make([]float64, len(s.vars))
		for q, j := range s.vars {
			pr.pts[k][q] = cols[j][i]
		}
		pr.f[k] = s.at(pr.pts[k])
	}
	// A fixed derangement, so that rows sorted by an input still pair
	// rows far apart.
	rng := rand.New(rand.NewPCG(0x5EB, 0xA7E))
	pr.partner = rng.Perm(m)
	for k, o := range pr.partner {
		if o == k {
			pr.partner[k] = (k + 1) % m
		}
	}
	return pr
}

// split is a partition of the surrogate's inputs: bit q of mask set puts
// s.vars[q] in A.
type split struct {
	mask    uint64
	product bool
	excess  float64 // interaction share minus the noise allowance
}

// crossed returns x with the inputs outside mask taken from o.
func crossed(x, o []float64, mask uint64) []float64 {
	out := slices.Clone(x)
	for q := range out {
		if mask&(1<<q) == 0 {
			out[q] = o[q]
		}
	}
	return out
}

// splitExcess returns the interaction share of split mask minus its noise
// allowance (see the rule above), on S or, with logs, on log|S|; false when
// log|S| is undefined at more than a quarter of the pairs (S changes sign
// or vanishes at one of their points; such pairs are left out, as noise
// near a zero of a one-signed law makes them). On log|S| each pair is
// weighted by the inverse of its noise variance, Σ σ²/S² over its four
// points, so pairs near a zero of S, where the log is mostly noise, count
// little.
func (pr *probe) splitExcess(mask uint64, logs bool) (float64, bool) {
	sign := math.Signbit(stat.Mean(pr.f, nil))
	var dd, bb, noise float64
	skipped := 0
	for k, x := range pr.pts {
		o := pr.partner[k]
		vals := [4]float64{pr.f[k], pr.s.at(crossed(x, pr.pts[o], mask)), pr.s.at(crossed(pr.pts[o], x, mask)), pr.f[o]}
		var t [4]float64
		var nk float64
		defined := true
		for c, v := range vals {
			switch {
			case !logs:
				t[c] = v
				nk++
			case v == 0 || math.Signbit(v) != sign:
				defined = false
			default:
				t[c] = math.Log(math.Abs(v))
				nk += 1 / (v * v)
			}
		}
		if !defined {
			skipped++
			continue
		}
		w := 1.0
		if logs {
			w = 1 / nk
		}
		noise += w * nk
		dv := t[0] - t[1] - t[2] + t[3]
		bv := t[0] - t[3]
		dd += w * dv * dv
		bb += w * bv * bv
	}
	if !(bb > 0) || 4*skipped > len(pr.pts) {
		return 0, false
	}
	return math.Sqrt(dd/bb) - pr.s.sigma*math.Sqrt(noise/bb), true
}

// bestSplit returns the split that holds with the smallest larger part
// (the most reduction), additive before multiplicative, then by excess.
func (pr *probe) bestSplit() (split, bool) {
	d := len(pr.s.vars)
	var best split
	found := false
	larger := func(mask uint64) int {
		a := bits.OnesCount64(mask)
		return max(a, d-a)
	}
	// The last input is always in B, so each partition is tried once.
	for mask := uint64(1); mask < 1<<(d-1) && !pr.stopped(); mask++ {
		for _, product := range []bool{false, true} {
			e, ok := pr.splitExcess(mask, product)
			if !ok || e > separableTolerance {
				continue
			}
			c := split{mask, product, e}
			if !found || larger(c.mask) < larger(best.mask) ||
				(larger(c.mask) == larger(best.mask) && (!c.product && best.product ||
					c.product == best.product && c.excess < best.excess)) {
				best, found = c, true
			}
		}
	}
	return best, found
}

// splitSeeds searches each part of sp on its own and joins the parts'
// models into seeds.
func splitSeeds(ctx context.Context, p *problem, opts Options, s *smoother, sp split, budget time.Duration) []tree {
	n := len(p.y)
	centre := slices.Clone(s.mean)
	type part struct {
		vars   []int // problem columns
		models []tree
	}
	var parts []part
	for _, inA := range []bool{true, false} {
		var vars []int
		mask := sp.mask
		if !inA {
			mask = ^sp.mask
		}
		for q, j := range s.vars {
			if mask&(1<<q) != 0 {
				vars = append(vars, j)
			}
		}
		// z_i = y_i ∘⁻¹ S(x_i with the other part at the centre).
		z := make([]float64, n)
		effect := make([]float64, n)
		x := make([]float64, len(s.vars))
		for i := range z {
			for q, j := range s.vars {
				x[q] = p.cols[j][i]
			}
			other := s.at(crossed(centre, x, mask))
			effect[i] = s.at(crossed(x, centre, mask))
			if sp.product {
				z[i] = p.y[i] / other
			} else {
				z[i] = p.y[i] - other
			}
		}
		// A part on which S hardly moves is a constant: leave it out.
		if sd := stdDev(effect); sd <= 3*s.sigma || !finiteValues(z) {
			continue
		}
		parts = append(parts, part{vars: vars})
		// Each part's model, a + b·f with its scaling, and the join take
		// three levels and nine nodes beyond the part's own tree.
		parts[len(parts)-1].models = subSearch(ctx, p, opts, vars, nil, z, budget/2, 3, 9)
	}
	var out []tree
	switch len(parts) {
	case 1:
		out = parts[0].models
	case 2:
		join := opAdd
		if sp.product {
			join = opMul
		}
		a, b := parts[0].models, parts[1].models
		if len(a) == 0 || len(b) == 0 {
			return nil
		}
		add := func(x, y tree) {
			out = append(out, append(append(x.clone(), y...), opNode(join)))
		}
		add(a[0], b[0])
		for _, x := range a[1:] {
			add(x, b[0])
		}
		for _, y := range b[1:] {
			add(a[0], y)
		}
	}
	return fitting(p, out)
}

// symmetry is a pair of the surrogate's inputs (positions in s.vars) on
// which it depends only through x_i ∘ x_j.
type symmetry struct {
	i, j   int
	op     opcode // opSub, opAdd, opMul or opDiv
	excess float64
	ratio  float64 // RMS change under the joint move over the single moves'
}

// symmetries returns the symmetries that hold, smallest excess first.
func (pr *probe) symmetries() []symmetry {
	s := pr.s
	var out []symmetry
	for i := range s.vars {
		for j := i + 1; j < len(s.vars) && !pr.stopped(); j++ {
			for _, op := range []opcode{opSub, opAdd, opMul, opDiv} {
				e, r, ok := pr.symmetryExcess(i, j, op)
				if ok && e <= symmetryTolerance {
					out = append(out, symmetry{i, j, op, e, r})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b symmetry) int { return cmpFloat(a.excess, b.excess) })
	return out
}

// jointSymmetries returns the best symmetry and, after it, the symmetries
// on pairs disjoint from those before them whose joint-move ratio is at
// most sameSymmetryRatio times the best one's: laws of several differences
// (G·m1·m2 over (x2 − x1)² + (y2 − y1)² + (z2 − z1)²) show each of them
// about as clearly, and substituting all at once makes the smaller
// problem smaller than substituting one per nested search would, within
// the same budget. The noise allowance alone cannot tell them apart when
// the surrogate's error is large against the single moves, while the
// ratio itself still ranks the true symmetries first.
func (pr *probe) jointSymmetries() []symmetry {
	all := pr.symmetries()
	if len(all) == 0 {
		return nil
	}
	out := all[:1]
	used := map[int]bool{all[0].i: true, all[0].j: true}
	rest := slices.Clone(all[1:])
	slices.SortStableFunc(rest, func(a, b symmetry) int { return cmpFloat(a.ratio, b.ratio) })
	for _, c := range rest {
		if c.ratio <= sameSymmetryRatio*all[0].ratio && !used[c.i] && !used[c.j] {
			out = append(out, c)
			used[c.i], used[c.j] = true, true
		}
	}
	return out
}

// symmetryExcess measures how little S changes when x_i and x_j move along
// a level set of x_i ∘ x_j, against the smaller change when either moves
// alone, minus the noise allowance, and returns it and the ratio of the
// changes before the allowance; false when the test does not apply
// (products and ratios of inputs that change sign, too few points whose
// move stays inside the data range).
func (pr *probe) symmetryExcess(i, j int, op opcode) (float64, float64, bool) {
	s := pr.s
	multiplicative := op == opMul || op == opDiv
	var step float64
	if multiplicative {
		for _, q := range []int{i, j} {
			if !(s.lo[q] > 0 || s.hi[q] < 0) {
				return 0, 0, false
			}
		}
		li, lj := make([]float64, len(pr.pts)), make([]float64, len(pr.pts))
		for k, x := range pr.pts {
			li[k], lj[k] = math.Log(math.Abs(x[i])), math.Log(math.Abs(x[j]))
		}
		step = symmetryStep * math.Min(stdDev(li), stdDev(lj))
	} else {
		step = symmetryStep * math.Min(s.std[i], s.std[j])
	}
	if !(step > 0) {
		return 0, 0, false
	}
	// move returns x_i, x_j after the joint move in direction dir (±1).
	move := func(xi, xj, dir float64) (float64, float64) {
		switch op {
		case opSub:
			return xi + dir*step, xj + dir*step
		case opAdd:
			return xi + dir*step, xj - dir*step
		case opMul:
			k := math.Exp(dir * step)
			return xi * k, xj / k
		default:
			k := math.Exp(dir * step)
			return xi * k, xj * k
		}
	}
	inside := func(q int, v float64) bool { return v >= s.lo[q] && v <= s.hi[q] }
	var joint, single [2]float64
	used := 0
	for k, x := range pr.pts {
		var ni, nj float64
		ok := false
		for _, dir := range []float64{1, -1} {
			if ni, nj = move(x[i], x[j], dir); inside(i, ni) && inside(j, nj) {
				ok = true
				break
			}
		}
		if !ok {
			continue
		}
		used++
		y := slices.Clone(x)
		y[i], y[j] = ni, nj
		dj := s.at(y) - pr.f[k]
		joint[0] += dj * dj
		y[j] = x[j]
		di := s.at(y) - pr.f[k]
		y[i], y[j] = x[i], nj
		dk := s.at(y) - pr.f[k]
		single[0] += di * di
		single[1] += dk * dk
	}
	if used < minProbePoints {
		return 0, 0, false
	}
	ref := math.Min(single[0], single[1])
	if !(ref > 0) {
		return 0, 0, false
	}
	ratio := math.Sqrt(joint[0] / ref)
	return ratio - math.Sqrt2*s.sigma*math.Sqrt(float64(used)/ref), ratio, true
}

// symmetrySeeds searches y on the inputs with u = x_i ∘ x_j in place of
// x_i and x_j, for each symmetry of sbs (disjoint pairs), and writes its
// models back in the inputs.
func symmetrySeeds(ctx context.Context, p *problem, opts Options, sbs []symmetry, budget time.Duration) []tree {
	b := newTermBuilder(p.g)
	paired := map[int]bool{}
	var extra []substituted
	for _, sb := range sbs {
		if !b.has[sb.op] {
			continue
		}
		xi, xj := p.g.vars[sb.i], p.g.vars[sb.j]
		u := make([]float64, len(p.y))
		for r := range u {
			u[r] = applyBinary(sb.op, p.cols[xi][r], p.cols[xj][r])
		}
		if !finiteValues(u) {
			continue
		}
		paired[xi], paired[xj] = true, true
		extra = append(extra, substituted{col: u, t: tree{varNode(xi), varNode(xj), opNode(sb.op)}})
	}
	if len(extra) == 0 {
		return nil
	}
	var vars []int
	for _, v := range p.g.vars {
		if !paired[v] {
			vars = append(vars, v)
		}
	}
	// Writing each u back as x_i ∘ x_j takes a level and two nodes.
	return fitting(p, subSearch(ctx, p, opts, vars, extra, p.y, budget, 1, 2*len(extra)))
}

// substituted is a new input of a smaller problem: its values and the
// tree over the problem's inputs it stands for.
type substituted struct {
	col []float64
	t   tree
}

// subSearch fits z on the problem columns vars (and the substituted inputs
// after them, if any) with a short search and returns the chosen model and
// the front's models more accurate than it, written in the problem's
// inputs. The search's depth and size limits are the problem's less depth
// and size, the room that writing its models into a seed takes.
func subSearch(ctx context.Context, p *problem, opts Options, vars []int, extra []substituted, z []float64, budget time.Duration, depth, size int) []tree {
	var cols [][]float64
	var names []string
	for _, v := range vars {
		cols = append(cols, p.cols[v])
		names = append(names, p.names[v])
	}
	for _, e := range extra {
		cols = append(cols, e.col)
		names = append(names, format(toExpr(e.t), p.names))
	}
	sub := Options{
		Operators: opts.Operators, MaxComplexity: max(5, p.s.maxSize-size), MaxDepth: max(3, p.s.maxDepth-depth),
		Generations: min(p.s.generations, structureGenerations), Populations: p.s.islands,
		PopulationSize: p.s.popSize, Seed: opts.Seed, TimeLimit: budget,
	}
	res, err := fit(ctx, cols, z, names, sub, true)
	if err != nil || res == nil || res.Best == nil {
		return nil
	}
	models := []*Model{res.Best}
	byMSE := slices.Clone(res.Front)
	slices.SortStableFunc(byMSE, func(a, b *Model) int { return cmpFloat(a.MSE, b.MSE) })
	for _, m := range byMSE {
		if len(models) >= partModels {
			break
		}
		if m != res.Best && m.MSE < res.Best.MSE {
			models = append(models, m)
		}
	}
	var out []tree
	for _, m := range models {
		var t tree
		for _, nd := range m.t {
			switch {
			case nd.op != opVar:
				t = append(t, nd)
			case int(nd.v) < len(vars):
				t = append(t, varNode(vars[nd.v]))
			default:
				t = append(t, extra[int(nd.v)-len(vars)].t...)
			}
		}
		out = append(out, t)
	}
	return out
}

// fitting simplifies the seeds and keeps those inside the grammar's limits.
func fitting(p *problem, seeds []tree) []tree {
	var out []tree
	for _, t := range seeds {
		if t, ok := p.simplest(t); ok {
			out = append(out, t)
		}
	}
	return out
}

// simplest returns t simplified, or t itself when only that is inside the
// grammar's limits, and whether either is. The seeding passes write their
// laws in the shape they fit them in (q·Ef·m^−1·ω0^−2·(1 − (ω/ω0)²)^−1,
// 25 nodes), which can be far longer than the law's shortest form
// (q·Ef/(m·(ω0² − ω²)), 13 nodes); but the canonical form chains
// products to the left, which can make a tree deeper (tanh written with
// exp under a factor).
func (p *problem) simplest(t tree) (tree, bool) {
	if s := simplifyTree(t); p.g.fits(s) {
		return s, true
	}
	return t, p.g.fits(t)
}

func stdDev(v []float64) float64 {
	_, sd := stat.PopMeanStdDev(v, nil)
	return sd
}

func finiteValues(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
