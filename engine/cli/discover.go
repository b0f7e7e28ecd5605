package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/data"
)

type discoverFlags struct {
	dataset, format, mode, output string
	targets, params, controls     []string
	seed                          int64
	timeLimit                     time.Duration
	threshold                     float64
}

func newDiscoverCommand() *cobra.Command {
	var fl discoverFlags
	cmd := &cobra.Command{
		Use:   "discover --dataset FILE --mode MODE --output results.json",
		Short: "Run a discovery on a dataset and write results.json and its artifacts",
		Long: `Run a discovery on a dataset file and write {"claims", "summary", "artifacts"}
to --output. Each artifact's content is written next to the output file under the
name given by the artifact's "file" field. Progress lines go to stderr.

--param takes KEY=VALUE with the run parameter names: target_variables
(comma-separated), constraints (separated by ';'), max_complexity, symbolic_prior,
neural_backbone, epochs, cross_validate.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          reported(cobra.NoArgs),
		RunE:          runner(func(cmd *cobra.Command) error { return discover(cmd, fl) }),
	}
	f := cmd.Flags()
	f.StringVar(&fl.dataset, "dataset", "", "dataset file (required)")
	f.StringVar(&fl.format, "format", "", "csv or parquet (default: by file extension)")
	f.StringVar(&fl.mode, "mode", "", "symbolic, neural, neuro_symbolic or causal (required)")
	f.StringVar(&fl.output, "output", "", "results file to write (required)")
	f.StringSliceVar(&fl.targets, "target", nil, "target column (repeatable)")
	f.StringArrayVar(&fl.params, "param", nil, "run parameter KEY=VALUE (repeatable)")
	f.StringSliceVar(&fl.controls, "negative-controls", nil, "negative controls: shuffled_target, noise_feature, time_shift, placebo_cause")
	f.Int64Var(&fl.seed, "seed", 1, "random seed; equal seeds give equal results")
	f.DurationVar(&fl.timeLimit, "time-limit", 0, "stop searching after this long and report the best so far (0: no limit)")
	f.Float64Var(&fl.threshold, "evidence-threshold", 0, "count claims scoring at least this in the summary")
	cmd.SetFlagErrorFunc(flagError)
	return cmd
}

func discover(cmd *cobra.Command, fl discoverFlags) error {
	switch {
	case fl.dataset == "":
		return fmt.Errorf("--dataset is required")
	case fl.mode == "":
		return fmt.Errorf("--mode is required (symbolic, neural, neuro_symbolic or causal)")
	case fl.output == "":
		return fmt.Errorf("--output is required")
	}
	spec := engine.Spec{Mode: engine.Mode(fl.mode), Targets: fl.targets, NegativeControls: fl.controls,
		Seed: fl.seed, TimeLimit: fl.timeLimit, EvidenceThreshold: fl.threshold}
	if err := parseParams(fl.params, &spec.Parameters); err != nil {
		return err
	}
	frame, err := data.Load(fl.dataset, fl.format)
	if err != nil {
		return err
	}
	if err := spec.Validate(frame); err != nil {
		return err
	}
	result, err := engine.Discover(cmd.Context(), frame, spec, &lineReporter{w: cmd.ErrOrStderr()})
	if err != nil {
		return err
	}
	return writeResult(fl.output, result)
}

// writeResult writes the artifacts beside the results file, then the
// results file itself, so a present results.json implies its artifacts.
func writeResult(output string, result *engine.Result) error {
	dir := filepath.Dir(output)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range result.Artifacts {
		a := &result.Artifacts[i]
		a.File = filepath.Base(a.Name)
		if err := os.WriteFile(filepath.Join(dir, a.File), a.Content, 0o644); err != nil {
			return fmt.Errorf("writing artifact %s: %w", a.Name, err)
		}
	}
	body, err := json.MarshalIndent(result, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(output, append(body, '\n'), 0o644)
}

// lineReporter prints one line per stage event: "stage <name> <status> <percent>%".
// Running-progress lines are printed at most every 10 percentage points.
type lineReporter struct {
	mu   sync.Mutex
	w    io.Writer
	last map[string]int
}

func (r *lineReporter) Stage(name, status string, progress float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string]int{}
	}
	pct := int(progress * 100)
	if engine.StageStatus(status) == engine.StatusRunning {
		if prev, ok := r.last[name]; ok && pct/10 == prev/10 {
			return
		}
		r.last[name] = pct
	}
	fmt.Fprintf(r.w, "stage %s %s %d%%\n", name, status, pct)
}
