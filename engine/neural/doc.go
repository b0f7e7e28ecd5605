// Package neural fits a small multilayer perceptron surrogate to tabular data
// and interrogates it: predictions, analytic input gradients, gradient-based
// variable importance and AI-Feynman-style separability tests.
//
// Everything is pure Go. Dense layers run on gonum's mat.Dense so a mini-batch
// is one BLAS-backed matrix product per layer. Hidden units use a smooth
// activation (tanh or SiLU) so the surrogate's first and second derivatives
// with respect to its inputs are meaningful, which the importance and
// separability analyses depend on.
//
// Data is passed column-major, as elsewhere in the engine: X[j][i] is feature j
// at row i.
package neural
