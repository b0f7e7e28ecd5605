// Package cli holds the subcommands of the disco binary: dev (the local stack), manager
// and apiserver (cluster roles), engine (discovery runs), mcp (agent server) and users.
package cli

import (
	"github.com/spf13/cobra"

	enginecli "github.com/discolab/disco/engine/cli"
)

// NewRoot returns the disco command with every subcommand.
func NewRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "disco",
		Short:         "disco: a scientific discovery service that runs as a Kubernetes operator",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	engine := enginecli.NewCommand()
	engine.AddCommand(newEngineRunCommand())
	root.AddCommand(newDevCommand(), newManagerCommand(), newAPIServerCommand(), engine, newMCPCommand(), newUsersCommand(), newLedgerCommand(), newBootstrapCommand())
	return root
}
