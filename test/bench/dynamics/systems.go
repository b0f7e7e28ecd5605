package main

import "math"

// system is one benchmark ODE: its states, right-hand side, true terms
// (names as engine/dynamics prints them) and how it is sampled.
type system struct {
	name   string
	states []string
	f      func(x, dx []float64)
	truth  []map[string]float64
	// ic draws one initial condition from u, a uniform [0,1) source.
	ic    func(u func() float64) []float64
	dt    float64
	steps int
}

// The six systems of issue 18 item 1. Parameters are the textbook ones
// (Lorenz 1963; Strogatz, Nonlinear Dynamics and Chaos; Kermack &
// McKendrick 1927 for SIR in population shares).
var systems = []system{
	{
		name:   "lorenz",
		states: []string{"x", "y", "z"},
		f: func(x, dx []float64) {
			dx[0] = 10 * (x[1] - x[0])
			dx[1] = x[0]*(28-x[2]) - x[1]
			dx[2] = x[0]*x[1] - 8.0/3*x[2]
		},
		truth: []map[string]float64{
			{"x": -10, "y": 10},
			{"x": 28, "y": -1, "x*z": -1},
			{"z": -8.0 / 3, "x*y": 1},
		},
		ic:    func(u func() float64) []float64 { return []float64{-15 + 30*u(), -15 + 30*u(), 10 + 30*u()} },
		dt:    0.01,
		steps: 1000,
	},
	{
		name:   "lotka_volterra",
		states: []string{"x", "y"},
		f: func(x, dx []float64) {
			dx[0] = 2.0/3*x[0] - 4.0/3*x[0]*x[1]
			dx[1] = x[0]*x[1] - x[1]
		},
		truth: []map[string]float64{
			{"x": 2.0 / 3, "x*y": -4.0 / 3},
			{"x*y": 1, "y": -1},
		},
		ic:    func(u func() float64) []float64 { return []float64{0.5 + 1.5*u(), 0.5 + 1.5*u()} },
		dt:    0.02,
		steps: 600,
	},
	{
		name:   "van_der_pol",
		states: []string{"x", "y"},
		f: func(x, dx []float64) {
			dx[0] = x[1]
			dx[1] = (1-x[0]*x[0])*x[1] - x[0]
		},
		truth: []map[string]float64{
			{"y": 1},
			{"y": 1, "x^2*y": -1, "x": -1},
		},
		ic:    func(u func() float64) []float64 { return []float64{-3 + 6*u(), -3 + 6*u()} },
		dt:    0.02,
		steps: 600,
	},
	{
		name:   "damped_pendulum",
		states: []string{"theta", "omega"},
		f: func(x, dx []float64) {
			dx[0] = x[1]
			dx[1] = -9.81*math.Sin(x[0]) - 0.3*x[1]
		},
		truth: []map[string]float64{
			{"omega": 1},
			{"sin(theta)": -9.81, "omega": -0.3},
		},
		ic: func(u func() float64) []float64 {
			s := 1.0
			if u() < 0.5 {
				s = -1
			}
			return []float64{s * (1 + 1.5*u()), -1 + 2*u()}
		},
		dt:    0.01,
		steps: 600,
	},
	{
		name:   "sir",
		states: []string{"S", "I", "R"},
		f: func(x, dx []float64) {
			dx[0] = -0.9 * x[0] * x[1]
			dx[1] = 0.9*x[0]*x[1] - 0.2*x[1]
			dx[2] = 0.2 * x[1]
		},
		truth: []map[string]float64{
			{"S*I": -0.9},
			{"S*I": 0.9, "I": -0.2},
			{"I": 0.2},
		},
		ic: func(u func() float64) []float64 {
			i, r := 0.01+0.09*u(), 0.2*u()
			return []float64{1 - i - r, i, r}
		},
		dt:    0.1,
		steps: 400,
	},
	{
		name:   "linear3",
		states: []string{"x", "y", "z"},
		f: func(x, dx []float64) {
			dx[0] = -0.1*x[0] + 2*x[1]
			dx[1] = -2*x[0] - 0.1*x[1]
			dx[2] = 0.3*x[0] - 0.3*x[2]
		},
		truth: []map[string]float64{
			{"x": -0.1, "y": 2},
			{"x": -2, "y": -0.1},
			{"x": 0.3, "z": -0.3},
		},
		ic:    func(u func() float64) []float64 { return []float64{-2 + 4*u(), -2 + 4*u(), -2 + 4*u()} },
		dt:    0.02,
		steps: 500,
	},
}

// noiseLevels are the noise standard deviations as shares of each state's
// RMS over all trajectories of a system.
var noiseLevels = []float64{0, 0.01, 0.05}

// trajectories per system and noise level.
const trajectories = 5
