// Package causal discovers causal graphs from observational data.
//
// Discover runs PC-stable (Colombo & Maathuis 2014) with Fisher-z
// partial-correlation tests computed from one precomputed correlation
// matrix, orients v-structures, closes the graph under Meek's rules R1–R4
// and then, when the data are non-Gaussian, orients the edges the
// conditional-independence tests cannot decide with the pairwise
// DirectLiNGAM likelihood-ratio measure (Hyvärinen & Smith 2013), re-applying
// Meek after each orientation.
//
// DiscoverLagged handles time-ordered rows in the style of PCMCI (Runge et
// al. 2019): a PC1 parent preselection per target followed by momentary
// conditional independence (MCI) tests, reported with nested-model Granger F
// statistics; contemporaneous structure comes from PC on the residuals of
// each variable given its lagged parents.
//
// SHD, CPDAG and SkeletonF1 score an estimated graph against a known DAG.
package causal
