package main

// defaultGrid is the sweep of `make bench-scale`: rows from 10^3 to 10^7 at
// 5 columns, then columns from 5 to 500 at 10,000 rows, per mode (issue 18,
// item 4; see test/bench/README.md, "scale"). Dynamics points run with a
// time limit long enough for their 19 time-shuffled refits to finish, so
// that their controls are decided.
const defaultGrid = "" +
	"causal:1000x5,causal:10000x5,causal:100000x5,causal:1000000x5,causal:10000000x5," +
	"symbolic:1000x5,symbolic:10000x5,symbolic:100000x5,symbolic:1000000x5,symbolic:10000000x5," +
	"causal:10000x50,causal:10000x100,causal:10000x200,causal:10000x500," +
	"symbolic:10000x10,symbolic:10000x20,symbolic:10000x50,symbolic:10000x100,symbolic:10000x200,symbolic:10000x500," +
	"neural:1000x5,neural:10000x5,neural:100000x5,neural:1000000x5,neural:10000000x5," +
	"neural:10000x10,neural:10000x20,neural:10000x50,neural:10000x100,neural:10000x200,neural:10000x500," +
	"neuro_symbolic:1000x5,neuro_symbolic:10000x5,neuro_symbolic:100000x5,neuro_symbolic:1000000x5,neuro_symbolic:10000000x5," +
	"neuro_symbolic:10000x10,neuro_symbolic:10000x20,neuro_symbolic:10000x50,neuro_symbolic:10000x100,neuro_symbolic:10000x200,neuro_symbolic:10000x500," +
	"conservation:1000x5,conservation:10000x5,conservation:100000x5,conservation:1000000x5,conservation:10000000x5," +
	"conservation:10000x10,conservation:10000x16,conservation:10000x20,conservation:10000x50," +
	"conservation:10000x100,conservation:10000x200,conservation:10000x500," +
	"dynamics:1000x5@10m,dynamics:10000x5@10m,dynamics:100000x5@10m,dynamics:1000000x5@10m,dynamics:10000000x5@10m," +
	"dynamics:10000x3@10m,dynamics:10000x8@10m,dynamics:10000x10@10m,dynamics:10000x20@10m,dynamics:10000x50@10m," +
	"dynamics:10000x100@30m,dynamics:10000x200@30m,dynamics:10000x500@30m"
