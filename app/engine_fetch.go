package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/spf13/cobra"

	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/datasource"
	"github.com/discolab/disco/runexec"
)

// newEngineFetchCommand is what a dataset's fetch Job runs (runexec.FetchJobFor): it copies
// one file from the PersistentVolumeClaim mounted at --root into the blob store at --key.
// When it copies nothing it stores a runexec.FetchRecord at --error-key and exits 0, so
// that the controller, which reads the store and not the pod, can say why; it exits
// non-zero only when the store itself fails (the Job then retries).
func newEngineFetchCommand() *cobra.Command {
	var root, name, claim, blobURL, key, errorKey string
	var maxBytes int64
	cmd := &cobra.Command{
		Use:   "fetch-source",
		Short: "Copy a dataset's file from a mounted PersistentVolumeClaim into the blob store (what a dataset's fetch Job runs)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			defer func() {
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "disco engine fetch-source: %v\n", err)
				}
			}()
			if root == "" || name == "" || blobURL == "" || key == "" || errorKey == "" {
				return errors.New("--root, --path, --blob-url, --key and --error-key are required")
			}
			ctx := cmd.Context()
			b, err := blob.Open(ctx, blobURL)
			if err != nil {
				return err
			}
			defer b.Close()
			rec, err := fetchFromDir(ctx, b, root, name, claim, key, maxBytes)
			if err != nil || rec == nil {
				return err
			}
			body, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), rec.Message)
			return b.Put(ctx, errorKey, body)
		},
	}
	cmd.Flags().StringVar(&root, "root", "", "directory the claim is mounted at")
	cmd.Flags().StringVar(&name, "path", "", "the file's path on the claim")
	cmd.Flags().StringVar(&claim, "claim", "", "the claim's name, for messages")
	cmd.Flags().StringVar(&blobURL, "blob-url", os.Getenv("DISCO_BLOB_URL"), "blob store to copy into")
	cmd.Flags().StringVar(&key, "key", "", "blob key the file is stored at")
	cmd.Flags().StringVar(&errorKey, "error-key", "", "blob key of the record saying why no file was stored")
	cmd.Flags().Int64Var(&maxBytes, "max-bytes", 0, "refuse a file larger than this (0: no limit)")
	return cmd
}

// fetchFromDir copies name, relative to dir, to key. A file that cannot be copied as named
// gives a record and no error; a store that fails gives an error.
func fetchFromDir(ctx context.Context, b *blob.Bucket, dir, name, claim, key string, maxBytes int64) (*runexec.FetchRecord, error) {
	// The path is read as the volume's own: /data/x.csv and data/x.csv name the same file.
	rel := strings.TrimPrefix(path.Clean("/"+name), "/")
	where := fmt.Sprintf("on the PersistentVolumeClaim %s", claim)
	if rel == "" {
		return &runexec.FetchRecord{Refused: true, Message: fmt.Sprintf("source.persistentVolumeClaim.path %q names no file %s", name, where)}, nil
	}
	f, err := datasource.OpenRegularFile(dir, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &runexec.FetchRecord{Message: fmt.Sprintf("the file %s does not exist %s (yet)", rel, where)}, nil
	case errors.Is(err, datasource.ErrOutside):
		return &runexec.FetchRecord{Refused: true, Message: fmt.Sprintf("the path %s leads outside the PersistentVolumeClaim %s", rel, claim)}, nil
	case errors.Is(err, datasource.ErrNotRegular):
		return &runexec.FetchRecord{Refused: true, Message: fmt.Sprintf("%s %s is not a regular file", rel, where)}, nil
	case err != nil:
		return &runexec.FetchRecord{Message: fmt.Sprintf("the file %s %s cannot be opened: %v", rel, where, errors.Unwrap(err))}, nil
	}
	defer f.Close()
	_, _, err = b.PutStream(ctx, key, f, maxBytes)
	if errors.Is(err, blob.ErrTooLarge) {
		return &runexec.FetchRecord{Refused: true, Message: fmt.Sprintf("the file %s %s is larger than %d bytes, the largest dataset this installation fetches", rel, where, maxBytes)}, nil
	}
	return nil, err
}
