package main

// defaultGrid is the sweep of `make bench-scale`: rows at 5 columns, then
// columns at 10,000 rows, per mode. Symbolic points stop at 10^6 rows and 20
// columns, and the last conservation and dynamics points are refused by
// their library bounds (see test/bench/README.md,
// "scale", for why). Dynamics points run with a 10-minute time limit, so
// that their controls finish.
const defaultGrid = "" +
	"causal:1000x5,causal:10000x5,causal:100000x5,causal:1000000x5,causal:10000000x5," +
	"symbolic:1000x5,symbolic:10000x5,symbolic:100000x5,symbolic:1000000x5," +
	"causal:10000x50,causal:10000x100,causal:10000x200,causal:10000x500," +
	"symbolic:10000x10,symbolic:10000x20," +
	"conservation:1000x5,conservation:10000x5,conservation:100000x5,conservation:1000000x5,conservation:10000000x5," +
	"conservation:10000x10,conservation:10000x16,conservation:10000x20," +
	"dynamics:1000x5@10m,dynamics:10000x5@10m,dynamics:100000x5@10m,dynamics:1000000x5@10m,dynamics:10000000x5@10m," +
	"dynamics:10000x3@10m,dynamics:10000x8@10m,dynamics:10000x10@10m"
