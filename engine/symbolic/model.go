package symbolic

// Model is one fitted expression.
type Model struct {
	// Expression is infix with ^ for powers, explicit *, variables by name,
	// functions sin cos tan exp log sqrt abs tanh asin cosh and constants with about 6
	// significant digits; sympy parses it.
	Expression string
	Complexity int     // node count of Expression
	MSE        float64 // mean squared error on the training data
	R2         float64 // coefficient of determination on the training data

	t tree // the expression with full-precision constants
}

// Predict evaluates the model on column-major inputs laid out as for Fit:
// X[j][i] is feature j at row i. Rows where the expression is undefined
// give NaN.
func (m *Model) Predict(X [][]float64) []float64 {
	n := 0
	for _, c := range X {
		n = max(n, len(c))
	}
	out := make([]float64, n)
	if n == 0 {
		return out
	}
	copy(out, newEvaluator(X, n).eval(m.t))
	return out
}

// Result is the outcome of Fit.
type Result struct {
	Best  *Model   // the model chosen from Front by the selection score
	Front []*Model // Pareto front of MSE against cost (complexity plus fitted constants, see paretoModels), cost ascending

	Generations int        // generations the search ran (a time limit may cut the last epoch short)
	Stop        StopReason // why it stopped
}

// StopReason says why a search ended.
type StopReason string

const (
	StopGenerations StopReason = "generations" // the generation budget ran out
	StopTimeLimit   StopReason = "time_limit"  // the time limit or the context ended it
	StopExact       StopReason = "exact"       // an exact model stopped getting simpler
	StopSettled     StopReason = "settled"     // noisy data: the choice settled on a law whose residuals look like noise
	StopTrivial     StopReason = "trivial"     // y is constant; there was nothing to search
)
