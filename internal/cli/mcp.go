package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

func newMCPCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the tool-calling agent (MCP) interface over stdio (credential from DISCO_API_KEY)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("mcp: not implemented yet; the MCP server is tracked in the Python client and MCP issue")
		},
	}
}
