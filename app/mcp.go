package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/discolab/disco/apiserver/mcp"
)

const defaultMCPBaseURL = "http://127.0.0.1:8080/v1"

// maxCredentialsFile bounds a credentials.json read by the client commands.
const maxCredentialsFile = 64 << 10

func newMCPCommand() *cobra.Command {
	var credsPath, baseURL string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the tool-calling agent (MCP) interface over stdio (credential from DISCO_API_KEY)",
		Long: `Serve disco's MCP tools over stdio for an agent host. Each tool calls the REST API with the
credential, so its scopes, tenant and governance apply.

The credential comes from DISCO_API_KEY (an API key or a session token) and the API address
from DISCO_BASE_URL (default ` + defaultMCPBaseURL + `), or both from --credentials, the
credentials.json that 'disco dev' writes in its data directory. --base-url overrides both.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			url, key, err := mcpSettings(credsPath, baseURL)
			if err != nil {
				return err
			}
			return mcp.ServeStdio(cmd.Context(), url, key, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&credsPath, "credentials", "", "a 'disco dev' credentials.json to take the base URL and API key from")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "the REST API address including /v1 (default $DISCO_BASE_URL or "+defaultMCPBaseURL+")")
	return cmd
}

// mcpSettings resolves the base URL and credential (apiSettings); the MCP tools need a
// credential.
func mcpSettings(credsPath, baseURL string) (string, string, error) {
	url, key, err := apiSettings(credsPath, baseURL)
	if err != nil {
		return "", "", fmt.Errorf("mcp: %w", err)
	}
	if key == "" && credsPath != "" {
		return "", "", fmt.Errorf("mcp: %s has no api_key", credsPath)
	}
	if key == "" {
		return "", "", errors.New("mcp: no credential: set DISCO_API_KEY to an API key or session token " +
			"(or pass --credentials <data-dir>/credentials.json from 'disco dev')")
	}
	return url, key, nil
}

// apiSettings resolves the REST API address and credential of the client commands (mcp,
// ledger): flags, then the credentials file, then the environment. The key is empty when
// none is given, or when the credentials file has none.
func apiSettings(credsPath, baseURL string) (url, key string, err error) {
	key = strings.TrimSpace(os.Getenv("DISCO_API_KEY"))
	url = strings.TrimSpace(os.Getenv("DISCO_BASE_URL"))
	if credsPath != "" {
		raw, err := readBounded(credsPath, maxCredentialsFile)
		if err != nil {
			return "", "", fmt.Errorf("read the credentials file: %w", err)
		}
		var c credentials
		if err := json.Unmarshal(raw, &c); err != nil {
			return "", "", fmt.Errorf("%s is not a disco dev credentials.json: %w", credsPath, err)
		}
		key = c.APIKey
		if c.BaseURL != "" {
			url = c.BaseURL
		}
	}
	if baseURL != "" {
		url = baseURL
	}
	if url == "" {
		url = defaultMCPBaseURL
	}
	return strings.TrimSuffix(url, "/"), key, nil
}
