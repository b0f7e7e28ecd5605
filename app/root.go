// Package app is disco's composition root: the subcommands of the disco binary and the code
// that builds each role from the shared packages. dev (the local stack), manager and
// apiserver (cluster roles), engine (discovery runs), mcp (agent server), users, ledger and
// bootstrap. Nothing imports app but main; the shared leaves live in internal/ (issue 16).
package app

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
	engine.AddCommand(newEngineRunCommand(), newEngineFetchCommand())
	root.AddCommand(newDevCommand(), newManagerCommand(), newAPIServerCommand(), engine, newMCPCommand(), newUsersCommand(), newLedgerCommand(), newBootstrapCommand())
	return root
}
