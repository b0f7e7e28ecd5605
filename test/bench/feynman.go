// Package bench holds the reference cases of the engine benchmark
// (make bench-engine): equations from the Feynman Symbolic Regression
// Database, synthetic linear SEMs with known graphs, the Sachs data,
// trajectories with conserved quantities and null data for calibration.
// It is not part of make test; see README.md in this directory.
package bench

import "math"

// Var is one input of a Feynman equation with the sampling range of the
// AI Feynman paper (Udrescu & Tegmark 2020, FeynmanEquations.csv): values are
// drawn uniformly from [Lo, Hi].
type Var struct {
	Name   string
	Lo, Hi float64
}

// Equation is one Feynman equation. Expr is the ground truth in the infix
// syntax the engine writes (^ for powers; sympy reads it with convert_xor);
// F evaluates the same formula. Tier is a rough difficulty label:
// "easy" (products/quotients of powers), "medium" (sums, roots, one
// transcendental function) or "hard" (nested or several transcendental
// functions, many variables).
type Equation struct {
	Name string
	Expr string
	Vars []Var
	F    func(v []float64) float64
	Tier string
}

func u15(names ...string) []Var { return uni(1, 5, names...) }

func uni(lo, hi float64, names ...string) []Var {
	out := make([]Var, len(names))
	for i, n := range names {
		out[i] = Var{n, lo, hi}
	}
	return out
}

func sq(x float64) float64 { return x * x }

// Feynman is the benchmark table, ordered from easy to hard within each
// series. Variable names avoid names sympy treats specially (lambda, gamma
// as a function, E, I, N, S, Q, pi) except through its local_dict, which
// the checker always passes.
var Feynman = []Equation{
	{"I.6.2a", "exp(-theta^2/2)/sqrt(2*pi)", uni(1, 3, "theta"),
		func(v []float64) float64 { return math.Exp(-sq(v[0])/2) / math.Sqrt(2*math.Pi) }, "medium"},
	{"I.6.2", "exp(-(theta/sigma)^2/2)/(sqrt(2*pi)*sigma)", uni(1, 3, "sigma", "theta"),
		func(v []float64) float64 { return math.Exp(-sq(v[1]/v[0])/2) / (math.Sqrt(2*math.Pi) * v[0]) }, "hard"},
	{"I.8.14", "sqrt((x2-x1)^2+(y2-y1)^2)", u15("x1", "x2", "y1", "y2"),
		func(v []float64) float64 { return math.Sqrt(sq(v[1]-v[0]) + sq(v[3]-v[2])) }, "hard"},
	{"I.10.7", "m_0/sqrt(1-v^2/c^2)", []Var{{"m_0", 1, 5}, {"v", 1, 2}, {"c", 3, 10}},
		func(v []float64) float64 { return v[0] / math.Sqrt(1-sq(v[1])/sq(v[2])) }, "medium"},
	{"I.11.19", "x1*y1+x2*y2+x3*y3", u15("x1", "x2", "x3", "y1", "y2", "y3"),
		func(v []float64) float64 { return v[0]*v[3] + v[1]*v[4] + v[2]*v[5] }, "medium"},
	{"I.12.1", "mu*Nn", u15("mu", "Nn"),
		func(v []float64) float64 { return v[0] * v[1] }, "easy"},
	{"I.12.2", "q1*q2/(4*pi*epsilon*r^2)", u15("q1", "q2", "epsilon", "r"),
		func(v []float64) float64 { return v[0] * v[1] / (4 * math.Pi * v[2] * sq(v[3])) }, "easy"},
	{"I.12.4", "q1/(4*pi*epsilon*r^2)", u15("q1", "epsilon", "r"),
		func(v []float64) float64 { return v[0] / (4 * math.Pi * v[1] * sq(v[2])) }, "easy"},
	{"I.12.11", "q*(Ef+B*v*sin(theta))", u15("q", "Ef", "B", "v", "theta"),
		func(v []float64) float64 { return v[0] * (v[1] + v[2]*v[3]*math.Sin(v[4])) }, "hard"},
	{"I.13.4", "1/2*m*(v^2+u^2+w^2)", u15("m", "v", "u", "w"),
		func(v []float64) float64 { return 0.5 * v[0] * (sq(v[1]) + sq(v[2]) + sq(v[3])) }, "medium"},
	{"I.13.12", "G*m1*m2*(1/r2-1/r1)", u15("m1", "m2", "r1", "r2", "G"),
		func(v []float64) float64 { return v[4] * v[0] * v[1] * (1/v[3] - 1/v[2]) }, "medium"},
	{"I.14.3", "m*g*z", u15("m", "g", "z"),
		func(v []float64) float64 { return v[0] * v[1] * v[2] }, "easy"},
	{"I.14.4", "1/2*k_spring*x^2", u15("k_spring", "x"),
		func(v []float64) float64 { return 0.5 * v[0] * sq(v[1]) }, "easy"},
	{"I.15.1", "m_0*v/sqrt(1-v^2/c^2)", []Var{{"m_0", 1, 5}, {"v", 1, 2}, {"c", 3, 10}},
		func(v []float64) float64 { return v[0] * v[1] / math.Sqrt(1-sq(v[1])/sq(v[2])) }, "medium"},
	{"I.16.6", "(u+v)/(1+u*v/c^2)", u15("c", "v", "u"),
		func(v []float64) float64 { return (v[2] + v[1]) / (1 + v[2]*v[1]/sq(v[0])) }, "medium"},
	{"I.18.4", "(m1*r1+m2*r2)/(m1+m2)", u15("m1", "m2", "r1", "r2"),
		func(v []float64) float64 { return (v[0]*v[2] + v[1]*v[3]) / (v[0] + v[1]) }, "medium"},
	{"I.18.12", "r*F*sin(theta)", append(u15("r", "F"), Var{"theta", 0, 5}),
		func(v []float64) float64 { return v[0] * v[1] * math.Sin(v[2]) }, "medium"},
	{"I.24.6", "1/4*m*(omega^2+omega_0^2)*x^2", u15("m", "omega", "omega_0", "x"),
		func(v []float64) float64 { return 0.25 * v[0] * (sq(v[1]) + sq(v[2])) * sq(v[3]) }, "medium"},
	{"I.25.13", "q/C", u15("q", "C"),
		func(v []float64) float64 { return v[0] / v[1] }, "easy"},
	{"I.26.2", "asin(n*sin(theta2))", []Var{{"n", 0, 1}, {"theta2", 1, 5}},
		func(v []float64) float64 { return math.Asin(v[0] * math.Sin(v[1])) }, "hard"},
	{"I.27.6", "1/(1/d1+n/d2)", u15("d1", "d2", "n"),
		func(v []float64) float64 { return 1 / (1/v[0] + v[2]/v[1]) }, "medium"},
	{"I.29.4", "omega/c", uni(1, 10, "omega", "c"),
		func(v []float64) float64 { return v[0] / v[1] }, "easy"},
	{"I.32.5", "q^2*a^2/(6*pi*epsilon*c^3)", u15("q", "a", "epsilon", "c"),
		func(v []float64) float64 { return sq(v[0]) * sq(v[1]) / (6 * math.Pi * v[2] * v[3] * v[3] * v[3]) }, "easy"},
	{"I.34.8", "q*v*B/p", u15("q", "v", "B", "p"),
		func(v []float64) float64 { return v[0] * v[1] * v[2] / v[3] }, "easy"},
	{"I.34.14", "(1+v/c)/sqrt(1-v^2/c^2)*omega_0", []Var{{"c", 3, 10}, {"v", 1, 2}, {"omega_0", 1, 5}},
		func(v []float64) float64 { return (1 + v[1]/v[0]) / math.Sqrt(1-sq(v[1])/sq(v[0])) * v[2] }, "hard"},
	{"I.34.27", "h/(2*pi)*omega", u15("omega", "h"),
		func(v []float64) float64 { return v[1] / (2 * math.Pi) * v[0] }, "easy"},
	{"I.37.4", "I1+I2+2*sqrt(I1*I2)*cos(delta)", u15("I1", "I2", "delta"),
		func(v []float64) float64 { return v[0] + v[1] + 2*math.Sqrt(v[0]*v[1])*math.Cos(v[2]) }, "hard"},
	{"I.39.10", "3/2*pr*V", u15("pr", "V"),
		func(v []float64) float64 { return 1.5 * v[0] * v[1] }, "easy"},
	{"I.39.11", "1/(gamma_-1)*pr*V", []Var{{"gamma_", 2, 5}, {"pr", 1, 5}, {"V", 1, 5}},
		func(v []float64) float64 { return 1 / (v[0] - 1) * v[1] * v[2] }, "medium"},
	{"I.39.22", "n*kb*T/V", u15("n", "T", "V", "kb"),
		func(v []float64) float64 { return v[0] * v[3] * v[1] / v[2] }, "easy"},
	{"I.43.31", "mob*kb*T", u15("mob", "T", "kb"),
		func(v []float64) float64 { return v[0] * v[2] * v[1] }, "easy"},
	{"I.47.23", "sqrt(gamma_*pr/rho)", u15("gamma_", "pr", "rho"),
		func(v []float64) float64 { return math.Sqrt(v[0] * v[1] / v[2]) }, "easy"},
	{"I.48.2", "m*c^2/sqrt(1-v^2/c^2)", []Var{{"m", 1, 5}, {"v", 1, 2}, {"c", 3, 10}},
		func(v []float64) float64 { return v[0] * sq(v[2]) / math.Sqrt(1-sq(v[1])/sq(v[2])) }, "hard"},
	{"I.50.26", "x1*(cos(omega*t)+alpha*cos(omega*t)^2)", uni(1, 3, "x1", "omega", "t", "alpha"),
		func(v []float64) float64 { c := math.Cos(v[1] * v[2]); return v[0] * (c + v[3]*c*c) }, "hard"},
	{"II.2.42", "kappa*(T2-T1)*A/d", u15("kappa", "T1", "T2", "A", "d"),
		func(v []float64) float64 { return v[0] * (v[2] - v[1]) * v[3] / v[4] }, "medium"},
	{"II.3.24", "Pwr/(4*pi*r^2)", u15("Pwr", "r"),
		func(v []float64) float64 { return v[0] / (4 * math.Pi * sq(v[1])) }, "easy"},
	{"II.4.23", "q/(4*pi*epsilon*r)", u15("q", "epsilon", "r"),
		func(v []float64) float64 { return v[0] / (4 * math.Pi * v[1] * v[2]) }, "easy"},
	{"II.6.15b", "p_d/(4*pi*epsilon)*3*cos(theta)*sin(theta)/r^3", uni(1, 3, "epsilon", "p_d", "theta", "r"),
		func(v []float64) float64 {
			return v[1] / (4 * math.Pi * v[0]) * 3 * math.Cos(v[2]) * math.Sin(v[2]) / (v[3] * v[3] * v[3])
		}, "hard"},
	{"II.8.31", "epsilon*Ef^2/2", u15("epsilon", "Ef"),
		func(v []float64) float64 { return v[0] * sq(v[1]) / 2 }, "easy"},
	{"II.11.28", "1+n*alpha/(1-(n*alpha/3))", uni(0, 1, "n", "alpha"),
		func(v []float64) float64 { return 1 + v[0]*v[1]/(1-v[0]*v[1]/3) }, "medium"},
	{"II.13.17", "1/(4*pi*epsilon*c^2)*2*I_/r", u15("epsilon", "c", "I_", "r"),
		func(v []float64) float64 { return 1 / (4 * math.Pi * v[0] * sq(v[1])) * 2 * v[2] / v[3] }, "easy"},
	{"II.15.4", "-mom*B*cos(theta)", u15("mom", "B", "theta"),
		func(v []float64) float64 { return -v[0] * v[1] * math.Cos(v[2]) }, "medium"},
	{"II.24.17", "sqrt(omega^2/c^2-pi^2/d^2)", []Var{{"omega", 4, 6}, {"c", 1, 2}, {"d", 2, 4}},
		func(v []float64) float64 { return math.Sqrt(sq(v[0])/sq(v[1]) - sq(math.Pi)/sq(v[2])) }, "hard"},
	{"II.34.2a", "q*v/(2*pi*r)", u15("q", "v", "r"),
		func(v []float64) float64 { return v[0] * v[1] / (2 * math.Pi * v[2]) }, "easy"},
	{"II.38.3", "Y*A*x/d", u15("Y", "A", "d", "x"),
		func(v []float64) float64 { return v[0] * v[1] * v[3] / v[2] }, "easy"},
	{"III.4.33", "h/(2*pi)*omega/(exp(h/(2*pi)*omega/(kb*T))-1)", u15("h", "omega", "kb", "T"),
		func(v []float64) float64 {
			hb := v[0] / (2 * math.Pi)
			return hb * v[1] / (math.Exp(hb*v[1]/(v[2]*v[3])) - 1)
		}, "hard"},
	{"III.7.38", "2*mom*B/(h/(2*pi))", u15("mom", "B", "h"),
		func(v []float64) float64 { return 2 * v[0] * v[1] / (v[2] / (2 * math.Pi)) }, "easy"},
	{"III.15.27", "2*pi*alpha/(n*d)", u15("alpha", "n", "d"),
		func(v []float64) float64 { return 2 * math.Pi * v[0] / (v[1] * v[2]) }, "easy"},
	{"III.17.37", "beta_*(1+alpha*cos(theta))", u15("beta_", "alpha", "theta"),
		func(v []float64) float64 { return v[0] * (1 + v[1]*math.Cos(v[2])) }, "medium"},
	{"III.21.20", "-rho_c_0*q*A_vec/m", u15("rho_c_0", "q", "A_vec", "m"),
		func(v []float64) float64 { return -v[0] * v[1] * v[2] / v[3] }, "easy"},
}
