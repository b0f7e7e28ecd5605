package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The client commands (mcp, ledger) take the API address and credential from the flags,
// then a credentials.json, then the environment; only mcp insists on a credential.
func TestAPISettings(t *testing.T) {
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials.json")
	if err := os.WriteFile(creds, []byte(`{"base_url": "http://file:1/v1/", "api_key": "disco_key_file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	noKey := filepath.Join(dir, "nokey.json")
	if err := os.WriteFile(noKey, []byte(`{"base_url": "http://file:1/v1"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DISCO_API_KEY", "")
	t.Setenv("DISCO_BASE_URL", "")
	if url, key, err := apiSettings("", ""); err != nil || url != defaultMCPBaseURL || key != "" {
		t.Errorf("nothing given: %q %q %v", url, key, err)
	}
	if _, _, err := mcpSettings("", ""); err == nil || !strings.Contains(err.Error(), "set DISCO_API_KEY") {
		t.Errorf("mcp without a credential: %v", err)
	}

	t.Setenv("DISCO_API_KEY", " disco_key_env ")
	t.Setenv("DISCO_BASE_URL", "http://env:1/v1")
	if url, key, err := apiSettings("", ""); err != nil || url != "http://env:1/v1" || key != "disco_key_env" {
		t.Errorf("environment: %q %q %v", url, key, err)
	}
	if url, key, err := mcpSettings(creds, ""); err != nil || url != "http://file:1/v1" || key != "disco_key_file" {
		t.Errorf("credentials file over the environment: %q %q %v", url, key, err)
	}
	if url, key, err := apiSettings(creds, "http://flag:1/v1"); err != nil || url != "http://flag:1/v1" || key != "disco_key_file" {
		t.Errorf("--base-url over the file: %q %q %v", url, key, err)
	}
	if url, key, err := apiSettings(noKey, ""); err != nil || url != "http://file:1/v1" || key != "" {
		t.Errorf("a credentials file without a key: %q %q %v", url, key, err)
	}
	if _, _, err := mcpSettings(noKey, ""); err == nil || !strings.Contains(err.Error(), "has no api_key") {
		t.Errorf("mcp with a credentials file without a key: %v", err)
	}
	for _, bad := range []string{filepath.Join(dir, "missing.json"), writeTemp(t, dir, "not json"), writeTemp(t, dir, strings.Repeat(" ", maxCredentialsFile+1))} {
		if _, _, err := apiSettings(bad, ""); err == nil {
			t.Errorf("credentials file %s accepted", bad)
		}
	}
}

func writeTemp(t *testing.T, dir, content string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "creds-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}
