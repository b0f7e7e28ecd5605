package bench

import "math"

// LotkaVolterra: x' = αx − βxy, y' = δxy − γy with α = 2/3, β = 4/3,
// γ = δ = 1; first integral δx − γ ln x + βy − α ln y (needs logarithms).
func LotkaVolterra(noise float64) *Trajectories {
	return lotkaVolterra("lotka_volterra", [4]float64{2.0 / 3, 4.0 / 3, 1, 1},
		[][2]float64{{1, 1}, {1.5, 1}, {2, 0.8}, {0.6, 1.4}, {2.5, 0.4}, {1.2, 2}}, 5, 200, noise,
		"x - log(x) + 4/3*y - 2/3*log(y)")
}

// LotkaVolterraWide: the same law with α = 1, β = 0.5, γ = 1.5, δ = 0.75 on
// four wide orbits, on which a six-term polynomial and cosine combination
// also approximates the integral 0.75x − 1.5 ln x + 0.5y − ln y.
func LotkaVolterraWide(noise float64) *Trajectories {
	return lotkaVolterra("lotka_volterra_wide", [4]float64{1, 0.5, 1.5, 0.75},
		[][2]float64{{2, 1}, {3, 2}, {1, 3}, {4, 1.5}}, 3, 500, noise,
		"0.75*x - 1.5*log(x) + 0.5*y - log(y)")
}

// lotkaVolterra simulates the law with p = (α, β, γ, δ) from each start,
// keeping every sub-th RK4 step of 0.01, samples per orbit.
func lotkaVolterra(name string, p [4]float64, starts [][2]float64, sub, samples int, noise float64, truth string) *Trajectories {
	alpha, beta, gamma, delta := p[0], p[1], p[2], p[3]
	var inits [][]float64
	for _, c := range starts {
		inits = append(inits, []float64{c[0], c[1]})
	}
	return simulate(name, []string{"x", "y"}, inits,
		func(s []float64) []float64 {
			return []float64{alpha*s[0] - beta*s[0]*s[1], delta*s[0]*s[1] - gamma*s[1]}
		},
		0.01, sub, samples, noise,
		func(s []float64) float64 {
			return delta*s[0] - gamma*math.Log(s[0]) + beta*s[1] - alpha*math.Log(s[1])
		}, truth)
}

// KeplerInvariants: planar orbits around GM = 1 of several sizes, shapes
// and orientations (so that every invariant differs between orbits), with
// four conserved quantities on the same states: the energy
// (vx² + vy²)/2 − 1/r, the angular momentum x vy − y vx and the two
// components of the Laplace–Runge–Lenz vector A = v × L − r/r. One case per
// quantity; the cases share their states.
func KeplerInvariants(noise float64) []*Trajectories {
	var inits [][]float64
	for _, s := range []struct{ r, phase, speed, tilt float64 }{
		{1, 0, 0.9, 0}, {1.3, 1, 0.85, 0.2}, {0.8, 2.5, 1.3, -0.3}, {1.1, 4, 1.1, 0.4}, {0.9, 5.2, 1.0, -0.1}, {1.2, 3, 0.95, 0.3},
	} {
		dir := s.phase + math.Pi/2 + s.tilt
		inits = append(inits, []float64{s.r * math.Cos(s.phase), s.r * math.Sin(s.phase),
			s.speed * math.Cos(dir), s.speed * math.Sin(dir)})
	}
	invR := func(s []float64) float64 { return 1 / math.Hypot(s[0], s[1]) }
	base := simulate("kepler_energy", []string{"x", "y", "vx", "vy"}, inits,
		func(s []float64) []float64 {
			r3 := math.Pow(s[0]*s[0]+s[1]*s[1], 1.5)
			return []float64{s[2], s[3], -s[0] / r3, -s[1] / r3}
		},
		0.001, 30, 200, noise,
		func(s []float64) float64 { return (s[2]*s[2]+s[3]*s[3])/2 - invR(s) }, "(vx^2 + vy^2)/2 - (x^2 + y^2)^-0.5")
	with := func(name, truth string, q func([]float64) float64) *Trajectories {
		t := *base
		t.Name, t.Truth, t.Quantity = name, truth, q
		return &t
	}
	return []*Trajectories{
		base,
		with("kepler_angular_momentum", "x*vy - y*vx", func(s []float64) float64 { return s[0]*s[3] - s[1]*s[2] }),
		with("kepler_lrl_x", "x*vy^2 - y*vx*vy - x*(x^2 + y^2)^-0.5", func(s []float64) float64 {
			return s[0]*s[3]*s[3] - s[1]*s[2]*s[3] - s[0]*invR(s)
		}),
		with("kepler_lrl_y", "y*vx^2 - x*vx*vy - y*(x^2 + y^2)^-0.5", func(s []float64) float64 {
			return s[1]*s[2]*s[2] - s[0]*s[2]*s[3] - s[1]*invR(s)
		}),
	}
}
