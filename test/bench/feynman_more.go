package bench

import "math"

// FeynmanMore holds the other 50 equations of the AI Feynman database
// (Udrescu & Tegmark 2020, FeynmanEquations.csv), with the database's
// formulas and sampling ranges. Variable names follow the database except
// where a name would collide: the database's y of II.6.15a is y_ (y is the
// target column), and Gamma, beta and I are gamma_, beta_ and I_ as in
// Feynman.
var FeynmanMore = []Equation{
	{"I.6.2b", "exp(-((theta-theta1)/sigma)^2/2)/(sqrt(2*pi)*sigma)", uni(1, 3, "sigma", "theta", "theta1"),
		func(v []float64) float64 {
			return math.Exp(-sq((v[1]-v[2])/v[0])/2) / (math.Sqrt(2*math.Pi) * v[0])
		}, "hard"},
	{"I.9.18", "G*m1*m2/((x2-x1)^2+(y2-y1)^2+(z2-z1)^2)",
		[]Var{{"m1", 1, 2}, {"m2", 1, 2}, {"G", 1, 2}, {"x1", 3, 4}, {"x2", 1, 2}, {"y1", 3, 4}, {"y2", 1, 2}, {"z1", 3, 4}, {"z2", 1, 2}},
		func(v []float64) float64 {
			return v[2] * v[0] * v[1] / (sq(v[4]-v[3]) + sq(v[6]-v[5]) + sq(v[8]-v[7]))
		}, "hard"},
	{"I.12.5", "q2*Ef", u15("q2", "Ef"),
		func(v []float64) float64 { return v[0] * v[1] }, "easy"},
	{"I.15.3x", "(x-u*t)/sqrt(1-u^2/c^2)", []Var{{"x", 5, 10}, {"u", 1, 2}, {"c", 3, 20}, {"t", 1, 2}},
		func(v []float64) float64 { return (v[0] - v[1]*v[3]) / math.Sqrt(1-sq(v[1])/sq(v[2])) }, "hard"},
	{"I.15.3t", "(t-u*x/c^2)/sqrt(1-u^2/c^2)", []Var{{"x", 1, 5}, {"c", 3, 10}, {"u", 1, 2}, {"t", 1, 5}},
		func(v []float64) float64 { return (v[3] - v[2]*v[0]/sq(v[1])) / math.Sqrt(1-sq(v[2])/sq(v[1])) }, "hard"},
	{"I.18.14", "m*r*v*sin(theta)", u15("m", "r", "v", "theta"),
		func(v []float64) float64 { return v[0] * v[1] * v[2] * math.Sin(v[3]) }, "medium"},
	{"I.29.16", "sqrt(x1^2+x2^2-2*x1*x2*cos(theta1-theta2))", u15("x1", "x2", "theta1", "theta2"),
		func(v []float64) float64 {
			return math.Sqrt(sq(v[0]) + sq(v[1]) - 2*v[0]*v[1]*math.Cos(v[2]-v[3]))
		}, "hard"},
	{"I.30.3", "Int_0*sin(n*theta/2)^2/sin(theta/2)^2", u15("Int_0", "theta", "n"),
		func(v []float64) float64 { return v[0] * sq(math.Sin(v[2]*v[1]/2)) / sq(math.Sin(v[1]/2)) }, "hard"},
	{"I.30.5", "asin(lambd/(n*d))", []Var{{"lambd", 1, 2}, {"d", 2, 5}, {"n", 1, 5}},
		func(v []float64) float64 { return math.Asin(v[0] / (v[2] * v[1])) }, "hard"},
	{"I.32.17", "(1/2*epsilon*c*Ef^2)*(8*pi*r^2/3)*(omega^4/(omega^2-omega_0^2)^2)",
		[]Var{{"epsilon", 1, 2}, {"c", 1, 2}, {"Ef", 1, 2}, {"r", 1, 2}, {"omega", 1, 2}, {"omega_0", 3, 5}},
		func(v []float64) float64 {
			w2 := sq(v[4])
			return (0.5 * v[0] * v[1] * sq(v[2])) * (8 * math.Pi * sq(v[3]) / 3) * (sq(w2) / sq(w2-sq(v[5])))
		}, "hard"},
	{"I.34.1", "omega_0/(1-v/c)", []Var{{"c", 3, 10}, {"v", 1, 2}, {"omega_0", 1, 5}},
		func(v []float64) float64 { return v[2] / (1 - v[1]/v[0]) }, "medium"},
	{"I.38.12", "4*pi*epsilon*(h/(2*pi))^2/(m*q^2)", u15("m", "q", "h", "epsilon"),
		func(v []float64) float64 { return 4 * math.Pi * v[3] * sq(v[2]/(2*math.Pi)) / (v[0] * sq(v[1])) }, "easy"},
	{"I.40.1", "n_0*exp(-m*g*x/(kb*T))", u15("n_0", "m", "x", "T", "g", "kb"),
		func(v []float64) float64 { return v[0] * math.Exp(-v[1]*v[4]*v[2]/(v[5]*v[3])) }, "medium"},
	{"I.41.16", "h/(2*pi)*omega^3/(pi^2*c^2*(exp((h/(2*pi))*omega/(kb*T))-1))", u15("omega", "T", "h", "kb", "c"),
		func(v []float64) float64 {
			hb := v[2] / (2 * math.Pi)
			return hb * v[0] * v[0] * v[0] / (math.Pi * math.Pi * sq(v[4]) * (math.Exp(hb*v[0]/(v[3]*v[1])) - 1))
		}, "hard"},
	{"I.43.16", "mu_drift*q*Volt/d", u15("mu_drift", "q", "Volt", "d"),
		func(v []float64) float64 { return v[0] * v[1] * v[2] / v[3] }, "easy"},
	{"I.43.43", "1/(gamma_-1)*kb*v/A", []Var{{"gamma_", 2, 5}, {"kb", 1, 5}, {"A", 1, 5}, {"v", 1, 5}},
		func(v []float64) float64 { return 1 / (v[0] - 1) * v[1] * v[3] / v[2] }, "medium"},
	{"I.44.4", "n*kb*T*log(V2/V1)", u15("n", "kb", "T", "V1", "V2"),
		func(v []float64) float64 { return v[0] * v[1] * v[2] * math.Log(v[4]/v[3]) }, "medium"},
	{"II.6.11", "1/(4*pi*epsilon)*p_d*cos(theta)/r^2", uni(1, 3, "epsilon", "p_d", "theta", "r"),
		func(v []float64) float64 { return 1 / (4 * math.Pi * v[0]) * v[1] * math.Cos(v[2]) / sq(v[3]) }, "medium"},
	{"II.6.15a", "p_d/(4*pi*epsilon)*3*z/r^5*sqrt(x^2+y_^2)", uni(1, 3, "epsilon", "p_d", "r", "x", "y_", "z"),
		func(v []float64) float64 {
			return v[1] / (4 * math.Pi * v[0]) * 3 * v[5] / math.Pow(v[2], 5) * math.Sqrt(sq(v[3])+sq(v[4]))
		}, "hard"},
	{"II.8.7", "3/5*q^2/(4*pi*epsilon*d)", u15("q", "epsilon", "d"),
		func(v []float64) float64 { return 3.0 / 5 * sq(v[0]) / (4 * math.Pi * v[1] * v[2]) }, "easy"},
	{"II.10.9", "sigma_den/epsilon*1/(1+chi)", u15("sigma_den", "epsilon", "chi"),
		func(v []float64) float64 { return v[0] / v[1] / (1 + v[2]) }, "medium"},
	{"II.11.3", "q*Ef/(m*(omega_0^2-omega^2))", []Var{{"q", 1, 3}, {"Ef", 1, 3}, {"m", 1, 3}, {"omega_0", 3, 5}, {"omega", 1, 2}},
		func(v []float64) float64 { return v[0] * v[1] / (v[2] * (sq(v[3]) - sq(v[4]))) }, "medium"},
	{"II.11.17", "n_0*(1+p_d*Ef*cos(theta)/(kb*T))", uni(1, 3, "n_0", "kb", "T", "theta", "p_d", "Ef"),
		func(v []float64) float64 { return v[0] * (1 + v[4]*v[5]*math.Cos(v[3])/(v[1]*v[2])) }, "hard"},
	{"II.11.20", "n_rho*p_d^2*Ef/(3*kb*T)", u15("n_rho", "p_d", "Ef", "kb", "T"),
		func(v []float64) float64 { return v[0] * sq(v[1]) * v[2] / (3 * v[3] * v[4]) }, "easy"},
	{"II.11.27", "n*alpha/(1-(n*alpha/3))*epsilon*Ef", []Var{{"n", 0, 1}, {"alpha", 0, 1}, {"epsilon", 1, 2}, {"Ef", 1, 2}},
		func(v []float64) float64 { return v[0] * v[1] / (1 - v[0]*v[1]/3) * v[2] * v[3] }, "medium"},
	{"II.13.23", "rho_c_0/sqrt(1-v^2/c^2)", []Var{{"rho_c_0", 1, 5}, {"v", 1, 2}, {"c", 3, 10}},
		func(v []float64) float64 { return v[0] / math.Sqrt(1-sq(v[1])/sq(v[2])) }, "medium"},
	{"II.13.34", "rho_c_0*v/sqrt(1-v^2/c^2)", []Var{{"rho_c_0", 1, 5}, {"v", 1, 2}, {"c", 3, 10}},
		func(v []float64) float64 { return v[0] * v[1] / math.Sqrt(1-sq(v[1])/sq(v[2])) }, "medium"},
	{"II.15.5", "-p_d*Ef*cos(theta)", u15("p_d", "Ef", "theta"),
		func(v []float64) float64 { return -v[0] * v[1] * math.Cos(v[2]) }, "medium"},
	{"II.21.32", "q/(4*pi*epsilon*r*(1-v/c))", []Var{{"q", 1, 5}, {"epsilon", 1, 5}, {"r", 1, 5}, {"v", 1, 2}, {"c", 3, 10}},
		func(v []float64) float64 { return v[0] / (4 * math.Pi * v[1] * v[2] * (1 - v[3]/v[4])) }, "medium"},
	{"II.27.16", "epsilon*c*Ef^2", u15("epsilon", "c", "Ef"),
		func(v []float64) float64 { return v[0] * v[1] * sq(v[2]) }, "easy"},
	{"II.27.18", "epsilon*Ef^2", u15("epsilon", "Ef"),
		func(v []float64) float64 { return v[0] * sq(v[1]) }, "easy"},
	{"II.34.2", "q*v*r/2", u15("q", "v", "r"),
		func(v []float64) float64 { return v[0] * v[1] * v[2] / 2 }, "easy"},
	{"II.34.11", "g_*q*B/(2*m)", u15("g_", "q", "B", "m"),
		func(v []float64) float64 { return v[0] * v[1] * v[2] / (2 * v[3]) }, "easy"},
	{"II.34.29a", "q*h/(4*pi*m)", u15("q", "h", "m"),
		func(v []float64) float64 { return v[0] * v[1] / (4 * math.Pi * v[2]) }, "easy"},
	{"II.34.29b", "g_*mom*B*Jz/(h/(2*pi))", u15("g_", "h", "Jz", "mom", "B"),
		func(v []float64) float64 { return v[0] * v[3] * v[4] * v[2] / (v[1] / (2 * math.Pi)) }, "easy"},
	{"II.35.18", "n_0/(exp(mom*B/(kb*T))+exp(-mom*B/(kb*T)))", uni(1, 3, "n_0", "kb", "T", "mom", "B"),
		func(v []float64) float64 {
			a := v[3] * v[4] / (v[1] * v[2])
			return v[0] / (math.Exp(a) + math.Exp(-a))
		}, "hard"},
	{"II.35.21", "n_rho*mom*tanh(mom*B/(kb*T))", u15("n_rho", "mom", "B", "kb", "T"),
		func(v []float64) float64 { return v[0] * v[1] * math.Tanh(v[1]*v[2]/(v[3]*v[4])) }, "hard"},
	{"II.36.38", "mom*H/(kb*T)+(mom*alpha)/(epsilon*c^2*kb*T)*M", uni(1, 3, "mom", "H", "kb", "T", "alpha", "epsilon", "c", "M"),
		func(v []float64) float64 {
			return v[0]*v[1]/(v[2]*v[3]) + (v[0]*v[4])/(v[5]*sq(v[6])*v[2]*v[3])*v[7]
		}, "hard"},
	{"II.37.1", "mom*(1+chi)*B", u15("mom", "B", "chi"),
		func(v []float64) float64 { return v[0] * (1 + v[2]) * v[1] }, "medium"},
	{"II.38.14", "Y/(2*(1+sigma))", u15("Y", "sigma"),
		func(v []float64) float64 { return v[0] / (2 * (1 + v[1])) }, "medium"},
	{"III.4.32", "1/(exp((h/(2*pi))*omega/(kb*T))-1)", u15("h", "omega", "kb", "T"),
		func(v []float64) float64 { return 1 / (math.Exp(v[0]/(2*math.Pi)*v[1]/(v[2]*v[3])) - 1) }, "hard"},
	{"III.8.54", "sin(E_n*t/(h/(2*pi)))^2", []Var{{"E_n", 1, 2}, {"t", 1, 2}, {"h", 1, 4}},
		func(v []float64) float64 { return sq(math.Sin(v[0] * v[1] / (v[2] / (2 * math.Pi)))) }, "hard"},
	{"III.9.52", "(p_d*Ef*t/(h/(2*pi)))*sin((omega-omega_0)*t/2)^2/((omega-omega_0)*t/2)^2",
		[]Var{{"p_d", 1, 3}, {"Ef", 1, 3}, {"t", 1, 3}, {"h", 1, 3}, {"omega", 1, 5}, {"omega_0", 1, 5}},
		func(v []float64) float64 {
			a := (v[4] - v[5]) * v[2] / 2
			return (v[0] * v[1] * v[2] / (v[3] / (2 * math.Pi))) * sq(math.Sin(a)) / sq(a)
		}, "hard"},
	{"III.10.19", "mom*sqrt(Bx^2+By^2+Bz^2)", u15("mom", "Bx", "By", "Bz"),
		func(v []float64) float64 { return v[0] * math.Sqrt(sq(v[1])+sq(v[2])+sq(v[3])) }, "medium"},
	{"III.12.43", "n*(h/(2*pi))", u15("n", "h"),
		func(v []float64) float64 { return v[0] * (v[1] / (2 * math.Pi)) }, "easy"},
	{"III.13.18", "2*E_n*d^2*k/(h/(2*pi))", u15("E_n", "d", "k", "h"),
		func(v []float64) float64 { return 2 * v[0] * sq(v[1]) * v[2] / (v[3] / (2 * math.Pi)) }, "easy"},
	{"III.14.14", "I_0*(exp(q*Volt/(kb*T))-1)", []Var{{"I_0", 1, 5}, {"q", 1, 2}, {"Volt", 1, 2}, {"kb", 1, 2}, {"T", 1, 2}},
		func(v []float64) float64 { return v[0] * (math.Exp(v[1]*v[2]/(v[3]*v[4])) - 1) }, "medium"},
	{"III.15.12", "2*U*(1-cos(k*d))", u15("U", "k", "d"),
		func(v []float64) float64 { return 2 * v[0] * (1 - math.Cos(v[1]*v[2])) }, "medium"},
	{"III.15.14", "(h/(2*pi))^2/(2*E_n*d^2)", u15("h", "E_n", "d"),
		func(v []float64) float64 { return sq(v[0]/(2*math.Pi)) / (2 * v[1] * sq(v[2])) }, "easy"},
	{"III.19.51", "-m*q^4/(2*(4*pi*epsilon)^2*(h/(2*pi))^2)*(1/n^2)", u15("m", "q", "h", "n", "epsilon"),
		func(v []float64) float64 {
			return -v[0] * sq(sq(v[1])) / (2 * sq(4*math.Pi*v[4]) * sq(v[2]/(2*math.Pi))) * (1 / sq(v[3]))
		}, "easy"},
}

// FeynmanAll is the whole database: the 50 equations of Feynman followed
// by FeynmanMore.
var FeynmanAll = append(append([]Equation(nil), Feynman...), FeynmanMore...)

// FeynmanSet returns the table a benchmark run selects: "50" (Feynman,
// the benchmark's table since its first run) or "100" (FeynmanAll).
func FeynmanSet(name string) ([]Equation, bool) {
	switch name {
	case "50":
		return Feynman, true
	case "100":
		return FeynmanAll, true
	}
	return nil, false
}
