package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/discolab/disco/engine/data"
)

func newProfileCommand() *cobra.Command {
	var dataset, format string
	cmd := &cobra.Command{
		Use:           "profile --dataset FILE [--format csv|parquet]",
		Short:         "Print the profile (row count, column statistics, quality) of a dataset as JSON",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          reported(cobra.NoArgs),
		RunE: runner(func(cmd *cobra.Command) error {
			if dataset == "" {
				return fmt.Errorf("--dataset is required")
			}
			f, err := data.Load(dataset, format)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			return enc.Encode(data.ProfileOf(f))
		}),
	}
	cmd.Flags().StringVar(&dataset, "dataset", "", "dataset file")
	cmd.Flags().StringVar(&format, "format", "", "csv or parquet (default: by file extension)")
	cmd.SetFlagErrorFunc(flagError)
	return cmd
}
