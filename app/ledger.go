package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/sumdb/note"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/internal/ledger"
)

// maxLedgerResponse bounds what the ledger commands read from the service: proofs are
// O(log n) hashes and a checkpoint is a few hundred bytes.
const maxLedgerResponse = 1 << 20

// maxCheckpointFile bounds a kept checkpoint file (a note has at most 100 signatures).
const maxCheckpointFile = 64 << 10

func newLedgerCommand() *cobra.Command {
	c := &ledgerClient{}
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Check the Evidence Ledger from outside: verifier key, checkpoints, consistency",
		Long: `Check a project's Evidence Ledger as a transparency-log client does (issue 17).

The service's own verification (GET .../ledger/verify) only shows that the ledger agrees with
itself: someone with database access can rewrite or truncate it and recompute every hash,
and it still verifies. Keep a signed checkpoint ('disco ledger checkpoint'), and later check
that the ledger still extends it ('disco ledger verify --since'): that catches both.

The API address comes from DISCO_BASE_URL (default ` + defaultMCPBaseURL + `) and the
credential (scope ledger:read) from DISCO_API_KEY, or both from --credentials, the
credentials.json that 'disco dev' writes. --base-url overrides both.`,
	}
	f := cmd.PersistentFlags()
	f.StringVar(&c.credsPath, "credentials", "", "a 'disco dev' credentials.json to take the base URL and API key from")
	f.StringVar(&c.base, "base-url", "", "the REST API address including /v1 (default $DISCO_BASE_URL or "+defaultMCPBaseURL+")")
	cmd.AddCommand(newLedgerKeyCommand(c), newLedgerCheckpointCommand(c), newLedgerVerifyCommand(c))
	return cmd
}

func newLedgerKeyCommand(c *ledgerClient) *cobra.Command {
	return &cobra.Command{
		Use:   "verifier-key",
		Short: "Print the note verifier key that signs the ledger's checkpoints",
		Long: `Print the note verifier key (<name>+<hash>+<base64 Ed25519 key>) that the service publishes
at GET /v1/ledger/verifier-key. Keep a copy obtained out of band and pass it to the other
commands with --key, so that they do not trust the service they check.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.resolve(); err != nil {
				return err
			}
			vkey, err := c.verifierKey(cmd.Context())
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), vkey)
			return nil
		},
	}
}

func newLedgerCheckpointCommand(c *ledgerClient) *cobra.Command {
	var key, out string
	cmd := &cobra.Command{
		Use:   "checkpoint PROJECT_ID",
		Short: "Fetch, check and print (or save) a project's current signed checkpoint",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.resolve(); err != nil {
				return err
			}
			ctx := cmd.Context()
			v, source, err := c.verifier(ctx, key)
			if err != nil {
				return err
			}
			signed, err := c.getText(ctx, "/projects/"+url.PathEscape(args[0])+"/ledger/checkpoint")
			if err != nil {
				return err
			}
			cp, err := ledger.OpenCheckpoint(signed, v)
			if err != nil {
				return fmt.Errorf("the service's checkpoint: %w", err)
			}
			if cp.ProjectID != args[0] {
				return fmt.Errorf("the service answered a checkpoint of %s for project %s", cp.ProjectID, args[0])
			}
			if out == "" {
				fmt.Fprint(cmd.OutOrStdout(), signed)
				return nil
			}
			if err := writeFileAtomic(out, []byte(signed)); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "saved the checkpoint of %s (%d entries, root %s) to %s, signed by %s\n",
				cp.ProjectID, cp.Size, cp.RootHash, out, source)
			return nil
		},
	}
	cmd.Flags().StringVar(&key, "key", "", "the verifier key, or @FILE holding it (default: fetch it from the service)")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the checkpoint to this file instead of standard output")
	return cmd
}

func newLedgerVerifyCommand(c *ledgerClient) *cobra.Command {
	var since, key, project string
	var update bool
	cmd := &cobra.Command{
		Use:   "verify --since CHECKPOINT_FILE",
		Short: "Check that a project's ledger still extends a checkpoint you kept",
		Long: `Check that the ledger still extends the checkpoint in CHECKPOINT_FILE (one saved by
'disco ledger checkpoint', or the checkpoint field of a verify or proof answer):

  1. the kept checkpoint's signature, with --key or the key the service publishes;
  2. the service's verification of the whole ledger, and the signature of its checkpoint;
  3. that the ledger did not shrink, and the Merkle consistency proof (RFC 6962) from the
     kept tree head to the current one, against the root hash in your file.

It prints each step and exits non-zero if any fails: a rewritten or truncated ledger fails
step 3 even when step 2 reports it valid.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.resolve(); err != nil {
				return err
			}
			return c.verifySince(cmd.Context(), cmd.OutOrStdout(), since, key, project, update)
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "file holding a signed checkpoint you kept (required)")
	cmd.Flags().StringVar(&key, "key", "", "the verifier key, or @FILE holding it (default: fetch it from the service)")
	cmd.Flags().StringVar(&project, "project", "", "fail unless the kept checkpoint is of this project")
	cmd.Flags().BoolVar(&update, "update", false, "on success, replace CHECKPOINT_FILE with the newer checkpoint")
	_ = cmd.MarkFlagRequired("since")
	return cmd
}

// verifySince runs the checks of 'disco ledger verify', printing one line per check.
func (c *ledgerClient) verifySince(ctx context.Context, w io.Writer, since, key, project string, update bool) error {
	raw, err := readBounded(since, maxCheckpointFile)
	if err != nil {
		return fmt.Errorf("read the kept checkpoint: %w", err)
	}
	keptNote := string(raw)
	if !strings.HasSuffix(keptNote, "\n") {
		keptNote += "\n" // tolerate a copy that lost its final newline
	}
	v, source, err := c.verifier(ctx, key)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "key          %s+%08x (%s)\n", v.Name(), v.KeyHash(), source)
	kept, err := ledger.OpenCheckpoint(keptNote, v)
	if err != nil {
		return fmt.Errorf("the kept checkpoint %s: %w", since, err)
	}
	if project != "" && kept.ProjectID != project {
		return fmt.Errorf("the kept checkpoint %s is of project %s, not %s", since, kept.ProjectID, project)
	}
	fmt.Fprintf(w, "kept         %s: %d entries, root %s (signature ok)\n", ledger.Origin(kept.ProjectID), kept.Size, kept.RootHash)

	base := "/projects/" + url.PathEscape(kept.ProjectID) + "/ledger"
	var verification struct {
		Valid      bool   `json:"valid"`
		Size       int64  `json:"size"`
		RootHash   string `json:"root_hash"`
		Checkpoint string `json:"checkpoint"`
	}
	if err := c.getJSON(ctx, base+"/verify", &verification); err != nil {
		return fmt.Errorf("the service's verification of %s: %w", kept.ProjectID, err)
	}
	now, err := ledger.OpenCheckpoint(verification.Checkpoint, v)
	if err != nil {
		return fmt.Errorf("the service's checkpoint: %w", err)
	}
	if !verification.Valid || now.ProjectID != kept.ProjectID || now.Size != verification.Size || now.RootHash.String() != verification.RootHash {
		return fmt.Errorf("the service's verification (valid %t, %d entries, root %s) does not match its checkpoint (%s, %d entries, root %s)",
			verification.Valid, verification.Size, verification.RootHash, now.ProjectID, now.Size, now.RootHash)
	}
	fmt.Fprintf(w, "service      verify: valid, %d entries, root %s (signature ok)\n", now.Size, now.RootHash)

	var hashes []string
	if kept.Size > 0 && now.Size > kept.Size {
		var p ledger.ConsistencyProof
		q := url.Values{"old_size": {fmt.Sprint(kept.Size)}, "new_size": {fmt.Sprint(now.Size)}}
		if err := c.getJSON(ctx, base+"/consistency?"+q.Encode(), &p); err != nil {
			return fmt.Errorf("the consistency proof: %w", err)
		}
		if p.OldSize != kept.Size || p.NewSize != now.Size {
			return fmt.Errorf("the service answered a proof from %d to %d entries, asked from %d to %d", p.OldSize, p.NewSize, kept.Size, now.Size)
		}
		hashes = p.Hashes
	}
	if err := ledger.CheckConsistency(kept, now, hashes); err != nil {
		fmt.Fprintf(w, "consistency  FAILED\n")
		return fmt.Errorf("the ledger of %s does not extend the checkpoint in %s (the service's own verification still calls it valid): %w",
			kept.ProjectID, since, err)
	}
	switch {
	case len(hashes) > 0:
		fmt.Fprintf(w, "consistency  proof of %d hashes from %d to %d entries: ok\n", len(hashes), kept.Size, now.Size)
	default:
		fmt.Fprintf(w, "consistency  %d to %d entries, nothing to prove: ok\n", kept.Size, now.Size)
	}
	fmt.Fprintf(w, "OK: the ledger of %s extends the kept checkpoint (%d -> %d entries)\n", kept.ProjectID, kept.Size, now.Size)
	if update && now.Size > kept.Size {
		if err := writeFileAtomic(since, []byte(verification.Checkpoint)); err != nil {
			return err
		}
		fmt.Fprintf(w, "updated %s to the checkpoint of %d entries\n", since, now.Size)
	}
	return nil
}

// ledgerClient calls the REST facade for the ledger commands.
type ledgerClient struct {
	credsPath, base string // flags
	key             string
	http            *http.Client
}

// resolve finds the API address and credential as 'disco mcp' does (apiSettings). The
// credential is optional here: the verifier key is public, and the service's 401 says
// what is missing.
func (c *ledgerClient) resolve() error {
	base, key, err := apiSettings(c.credsPath, c.base)
	if err != nil {
		return err
	}
	c.base, c.key = base, key
	if c.http == nil {
		c.http = &http.Client{Timeout: time.Minute}
	}
	return nil
}

// verifier returns the checkpoint verifier: the key given (a verifier key, or @FILE),
// or the one the service publishes, and says which.
func (c *ledgerClient) verifier(ctx context.Context, key string) (note.Verifier, string, error) {
	source := "given with --key"
	if path, ok := strings.CutPrefix(key, "@"); ok {
		raw, err := readBounded(path, maxCheckpointFile)
		if err != nil {
			return nil, "", fmt.Errorf("read the verifier key: %w", err)
		}
		key, source = strings.TrimSpace(string(raw)), "from "+path
	}
	if key == "" {
		vkey, err := c.verifierKey(ctx)
		if err != nil {
			return nil, "", err
		}
		key, source = vkey, "published by "+c.base+"; pin a copy obtained out of band with --key"
	}
	v, err := note.NewVerifier(key)
	if err != nil {
		return nil, "", fmt.Errorf("the verifier key %q: %w", key, err)
	}
	return v, source, nil
}

func (c *ledgerClient) verifierKey(ctx context.Context) (string, error) {
	var body struct {
		VerifierKey string `json:"verifier_key"`
	}
	if err := c.getJSON(ctx, "/ledger/verifier-key", &body); err != nil {
		return "", fmt.Errorf("the service's verifier key: %w", err)
	}
	return body.VerifierKey, nil
}

func (c *ledgerClient) getJSON(ctx context.Context, path string, out any) error {
	body, err := c.get(ctx, path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("GET %s: unexpected answer: %w", path, err)
	}
	return nil
}

func (c *ledgerClient) getText(ctx context.Context, path string) (string, error) {
	body, err := c.get(ctx, path)
	return string(body), err
}

// get answers the body of a 200, or an error carrying the service's error envelope.
func (c *ledgerClient) get(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxLedgerResponse+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if len(body) > maxLedgerResponse {
		return nil, fmt.Errorf("GET %s: the answer exceeds %d bytes", path, maxLedgerResponse)
	}
	if res.StatusCode == http.StatusOK {
		return body, nil
	}
	var envelope apierror.Error
	if json.Unmarshal(body, &envelope) == nil && envelope.Body.Code != "" {
		err = fmt.Errorf("GET %s: %d %s: %s", path, res.StatusCode, envelope.Body.Code, envelope.Body.Message)
	} else {
		err = fmt.Errorf("GET %s: %s", path, res.Status)
	}
	if res.StatusCode == http.StatusUnauthorized && c.key == "" {
		err = errors.Join(err, errors.New("set DISCO_API_KEY to an API key with ledger:read (or pass --credentials <data-dir>/credentials.json)"))
	}
	return nil, err
}

// readBounded reads a small local file, refusing one larger than limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, limit)
	}
	return raw, nil
}

// writeFileAtomic replaces path with data: written to a temporary file, then renamed.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
