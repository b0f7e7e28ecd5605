package dynamics

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Acceptance rule constants (see the package documentation).
const (
	// validError is the normalised error (RMS over the states of the
	// error divided by each state's held-out standard deviation) up to
	// which a simulated trajectory still counts as following the data.
	validError = 0.5
	// horizonGain is how many times longer than the persistence forecast
	// x(t) = x(t0) the discovered system must follow the held-out data
	// (median horizons over the simulated segments).
	horizonGain = 3.0
	// minValidSamples is the fewest sample intervals the median horizon
	// must span.
	minValidSamples = 5
	// minInclusion is the smallest share of ensemble members whose support
	// holds a term, for every term of an accepted equation (the inclusion
	// probability of ensemble SINDy; Fasel, Kutz, Brunton & Brunton 2022,
	// Proc. R. Soc. A 478:20210904).
	minInclusion = 0.6
	// startsPerPiece is the number of initial conditions simulated from on
	// each held-out trajectory piece, spread over its first half.
	startsPerPiece = 4
)

// Simulation is the evidence from simulating the discovered system from
// held-out initial conditions and comparing with the held-out data.
type Simulation struct {
	// HeldOut says what was held out: "trajectories" (every fourth
	// trajectory, when there are at least four) or "tails" (the last
	// quarter of each trajectory).
	HeldOut string
	// Segments is the number of simulated segments; Diverged how many of
	// them left the data's range or stopped being finite.
	Segments, Diverged int
	// Horizon is the median over segments of the time the simulation
	// stays within the normalised error validError of the data;
	// PersistenceHorizon the same for the forecast x(t) = x(t0).
	Horizon, PersistenceHorizon float64
	// SegmentLength is the median simulated time span.
	SegmentLength float64
	// NRMSE is the median over segments of the normalised RMS error over
	// the whole segment (diverged parts count as error 10); NRMSEHorizon
	// the same over each segment's valid horizon only.
	NRMSE, NRMSEHorizon float64
	// Passed is the simulation part of the acceptance rule: Horizon ≥
	// horizonGain·PersistenceHorizon and Horizon spans at least
	// minValidSamples median sample intervals.
	Passed bool
}

// errorCap is the normalised error counted for samples after a divergence.
const errorCap = 10.0

// simulate scores the model rhs on the held-out pieces.
func simulate(pieces []segment, states int, rhs func(z, dx []float64)) Simulation {
	var sim Simulation
	if len(pieces) == 0 {
		return sim
	}
	sd := make([]float64, states)
	bound := 0.0
	for j := range states {
		var all []float64
		for _, p := range pieces {
			all = append(all, p.column(j)...)
		}
		_, s := stat.MeanStdDev(all, nil)
		if !(s > 0) {
			s = 1
		}
		sd[j] = s
		for _, v := range all {
			bound = math.Max(bound, math.Abs(v))
		}
		bound = math.Max(bound, s)
	}
	bound *= 10
	var horizons, persist, lengths, nrmse, nrmseH, spacing []float64
	for _, p := range pieces {
		n := len(p.t)
		radius := autoRadius(n)
		// the initial conditions come from short quartic fits: a window as
		// wide as the regression's would bend fast oscillations (Lorenz) and
		// start every simulation off the trajectory
		fits := make([]*localFit, states)
		for j := range states {
			fits[j] = newLocalFit(p.t, p.column(j), max(radius/4, minRadius), localDegree)
		}
		spacing = append(spacing, (p.t[n-1]-p.t[0])/float64(n-1))
		for q := range startsPerPiece {
			start := q * n / (2 * startsPerPiece)
			seg := p.slice(start, n)
			x0 := make([]float64, states)
			for j := range states {
				x0[j], _ = fits[j].at(start)
			}
			z := make([]float64, len(seg.x[0]))
			f := func(t float64, x, dx []float64) {
				copy(z, x)
				seg.inputsAt(t, z[states:], states)
				rhs(z, dx)
			}
			path, err := Integrate(f, x0, seg.t, IntegrateOptions{Bound: bound})
			if err != nil {
				sim.Diverged++
			}
			errModel := make([]float64, len(seg.t))
			errPersist := make([]float64, len(seg.t))
			for i := range seg.t {
				errModel[i] = errorCap
				if i < len(path) {
					errModel[i] = math.Min(normError(path[i], seg.x[i], sd), errorCap)
				}
				errPersist[i] = math.Min(normError(x0, seg.x[i], sd), errorCap)
			}
			hm, km := horizon(seg.t, windowRMS(errModel, radius/2))
			hp, _ := horizon(seg.t, windowRMS(errPersist, radius/2))
			horizons = append(horizons, hm)
			persist = append(persist, hp)
			lengths = append(lengths, seg.t[len(seg.t)-1]-seg.t[0])
			nrmse = append(nrmse, rms(errModel))
			nrmseH = append(nrmseH, rms(errModel[:max(km, 1)]))
			sim.Segments++
		}
	}
	sim.Horizon = median(horizons)
	sim.PersistenceHorizon = median(persist)
	sim.SegmentLength = median(lengths)
	sim.NRMSE = median(nrmse)
	sim.NRMSEHorizon = median(nrmseH)
	sim.Passed = sim.Horizon >= horizonGain*sim.PersistenceHorizon &&
		sim.Horizon >= minValidSamples*median(spacing)
	return sim
}

// inputsAt writes the inputs at time t, linearly interpolated between the
// samples of s (held constant outside them), into u.
func (s segment) inputsAt(t float64, u []float64, states int) {
	if len(u) == 0 {
		return
	}
	i := sort.SearchFloat64s(s.t, t)
	switch {
	case i <= 0:
		copy(u, s.x[0][states:])
	case i >= len(s.t):
		copy(u, s.x[len(s.t)-1][states:])
	default:
		w := (t - s.t[i-1]) / (s.t[i] - s.t[i-1])
		for k := range u {
			u[k] = (1-w)*s.x[i-1][states+k] + w*s.x[i][states+k]
		}
	}
}

// normError is sqrt(mean_j ((a_j − b_j)/sd_j)²) over the states.
func normError(a, b, sd []float64) float64 {
	var s float64
	for j, d := range sd {
		e := (a[j] - b[j]) / d
		s += e * e
	}
	if math.IsNaN(s) {
		return math.Inf(1)
	}
	return math.Sqrt(s / float64(len(sd)))
}

// horizon returns the time from t[0] to the last sample before the error
// first exceeds validError (the whole span when it never does), and the
// number of samples within it.
func horizon(t, e []float64) (float64, int) {
	for i, v := range e {
		if v > validError {
			if i == 0 {
				return 0, 0
			}
			return t[i-1] - t[0], i
		}
	}
	return t[len(t)-1] - t[0], len(t)
}

// windowRMS returns the RMS of e over the samples within r of each sample,
// so that a single noisy sample does not end a horizon.
func windowRMS(e []float64, r int) []float64 {
	out := make([]float64, len(e))
	for i := range e {
		out[i] = rms(e[max(i-r, 0):min(i+r+1, len(e))])
	}
	return out
}

func rms(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s / float64(len(v)))
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
