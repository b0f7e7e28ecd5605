// Package data loads, validates and profiles the tabular datasets that the
// discovery engine works on.
//
// A dataset is read into a column-oriented Frame. Numeric columns (int64,
// float64 and bool, the latter as 0/1) keep their values as float64 with NaN
// marking a null cell, because every engine algorithm consumes float64
// vectors; string columns keep their text. CSV (with delimiter sniffing) and
// Parquet files are supported. Every problem a user can fix is reported as a
// *ValidationError whose Code is stable and whose Message names the column or
// line to look at.
package data
