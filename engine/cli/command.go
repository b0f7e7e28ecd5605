package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// NewCommand returns the `engine` command with its subcommands.
func NewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:           "engine",
		Short:         "Run the discovery engine on a local dataset",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          reported(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.SetFlagErrorFunc(flagError)
	cmd.AddCommand(newDiscoverCommand(), newProfileCommand())
	return cmd
}

// reportErr prints err as the one line users see and returns it so the
// process exits non-zero. Multi-line messages are folded.
func reportErr(cmd *cobra.Command, err error) error {
	if err != nil {
		msg := strings.Join(strings.Fields(err.Error()), " ")
		fmt.Fprintf(cmd.ErrOrStderr(), "disco engine: %s\n", msg)
	}
	return err
}

// reported wraps an argument validator so its error is printed too.
func reported(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		return reportErr(cmd, check(cmd, args))
	}
}

func flagError(cmd *cobra.Command, err error) error {
	return reportErr(cmd, err)
}

// runner adapts a function to RunE with error reporting.
func runner(fn func(cmd *cobra.Command) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		return reportErr(cmd, fn(cmd))
	}
}
