// Package artifacts renders run artifacts: SVG plots of fitted models
// (predicted against observed values, the Pareto front of loss against
// complexity) drawn with gonum.org/v1/plot, and causal or dependency graphs
// as hand-written SVG and as Graphviz DOT.
//
// Every function validates its input and returns an error rather than an
// empty or misleading picture. Text that comes from users (titles, variable
// names, edge labels) is escaped, so hostile names cannot break the XML.
package artifacts
