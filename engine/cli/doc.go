// Package cli provides the `disco engine` commands: discover runs the
// discovery engine on a dataset file and writes results.json plus artifact
// files; profile prints a dataset's profile. Errors are printed as one line,
// "disco engine: <message>", on stderr, and the command fails.
package cli
