package datasets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/datasetunits"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/scratch"
)

// Supported dataset formats.
var datasetFormats = []string{"parquet", "csv"}

// documentUpload describes the multipart body in OpenAPI. The operation itself declares
// no body, so huma never reads it: the handler streams it.
func documentUpload(api huma.API) {
	op := api.OpenAPI().Paths["/projects/{project_id}/datasets"].Post
	op.RequestBody = &huma.RequestBody{
		Required: true,
		Content: map[string]*huma.MediaType{"multipart/form-data": {
			Schema: &huma.Schema{
				Type:     "object",
				Required: []string{"file", "metadata"},
				Properties: map[string]*huma.Schema{
					"file":     {Type: "string", Format: "binary", Description: "The dataset file."},
					"metadata": api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[datasetMetadata](), true, "DatasetMetadata"),
				},
			},
			Encoding: map[string]*huma.Encoding{"metadata": {ContentType: "application/json"}},
		}},
	}
}

func (s *handlers) uploadDataset(ctx context.Context, in *resource.ProjectPath) (*datasetOutput, error) {
	p, t := auth.Who(ctx)
	w, r := transport.RawRequest(ctx)
	proj, err := s.Kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	if err := projects.Archived(proj, "uploads"); err != nil {
		return nil, err
	}
	if s.Blob == nil {
		return nil, apierror.NotImplemented("dataset storage")
	}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, apierror.New(http.StatusUnsupportedMediaType, apierror.CodeUnsupportedMedia,
			"dataset upload takes multipart/form-data with parts file and metadata")
	}
	limit := s.MaxUploadBytes
	// The multipart framing and the metadata part ride on top of the file.
	r.Body = http.MaxBytesReader(w, r.Body, limit+1<<20)
	mr := multipart.NewReader(r.Body, params["boundary"])

	id := ids.New(ids.Dataset)
	key := blob.DatasetKey(t.ID, t.Namespace, in.ProjectID, id)
	var (
		meta            *datasetMetadata
		spool           *os.File
		stored          bool
		size            int64
		sum             string
		sniff           *sniffer
		fileName        string
		succeeded       bool
		metaParseFailed *apierror.Error
	)
	// Nothing half-stored: unless the dataset object is created, the file goes.
	defer func() {
		if spool != nil {
			scratch.Remove(spool)
		}
		if stored && !succeeded {
			_ = s.Blob.Delete(context.WithoutCancel(ctx), key)
		}
	}()
	tooLarge := func() error {
		return apierror.New(http.StatusRequestEntityTooLarge, apierror.CodePayloadTooLarge,
			"the dataset exceeds the upload limit of %d bytes", limit).With("limit_bytes", limit)
	}
	// bodyError answers a failed read of the request body: the client's doing, never a
	// server fault (issue 17 item 9).
	bodyError := func(what string, err error) error {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge()
		}
		if be := transport.RequestBodyError(err); be != nil {
			return be
		}
		return apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "%s could not be read: %v", what, err)
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, bodyError("the multipart body", err)
		}
		switch part.FormName() {
		case "metadata":
			if meta != nil {
				return nil, apierror.Invalid("body.metadata", "given twice")
			}
			m, perr := parseMetadata(part)
			if perr != nil {
				metaParseFailed = perr
				meta = &datasetMetadata{}
				continue
			}
			meta = m
			// Refuse an unsupported format before taking the file.
			if spool == nil && !supportedFormat(meta.Format) {
				return nil, formatUnsupported(meta.Format)
			}
		case "file":
			if spool != nil {
				return nil, apierror.Invalid("body.file", "given twice")
			}
			fileName = part.FileName()
			sniff = &sniffer{}
			// The file is spooled to a private scratch file (0600, swept at start) and
			// checked there before it is stored (issue 17).
			if spool, err = scratch.Create(s.ScratchDir, uploadPrefix); err != nil {
				return nil, apierror.Internal(err)
			}
			src := &readRecorder{r: io.LimitReader(part, limit+1)}
			h := sha256.New()
			size, err = io.Copy(io.MultiWriter(spool, h, sniff), src)
			switch {
			case src.err != nil:
				return nil, bodyError("the file part", src.err)
			case err != nil:
				return nil, apierror.Internal(err)
			case size > limit:
				return nil, tooLarge()
			}
			sum = hex.EncodeToString(h.Sum(nil))
		default:
			// Unknown parts are ignored, as unknown JSON fields are.
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, bodyError("the multipart body", err)
			}
		}
	}
	if metaParseFailed != nil {
		return nil, metaParseFailed
	}
	var missing []apierror.Field
	if spool == nil {
		missing = append(missing, apierror.Field{Field: "body.file", Message: "required part is missing"})
	}
	if meta == nil {
		missing = append(missing, apierror.Field{Field: "body.metadata", Message: "required part is missing"})
	}
	if len(missing) > 0 {
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the upload needs the parts file and metadata").With("fields", missing)
	}
	if !supportedFormat(meta.Format) {
		return nil, formatUnsupported(meta.Format)
	}
	if reason := sniff.check(meta.Format, size); reason != "" {
		return nil, apierror.New(http.StatusUnprocessableEntity, apierror.CodeDatasetUnreadable,
			"the file is not readable as %s: %s", meta.Format, reason).With("reason", reason).With("format", meta.Format)
	}
	// A dataset's status lists its columns and the CRD allows 4096 of them: a wider file
	// could never be profiled (issue 17 item 7). Only the header line or the Parquet
	// footer is read; a file whose header cannot be read is left to profiling to report.
	if n, err := data.Width(spool, size, meta.Format); err == nil && n > data.MaxColumns {
		return nil, apierror.New(http.StatusUnprocessableEntity, apierror.CodeDatasetTooWide,
			"the file has %d columns, more than the limit of %d; split it into files of at most %d columns", n, data.MaxColumns, data.MaxColumns).
			With("columns", n).With("limit", data.MaxColumns)
	}
	// Every declared unit must name a column of the file. The header is read only when
	// units are declared; a header that cannot be read is left to profiling, which also
	// fails a dataset whose units name a column it lacks.
	if len(meta.Units) > 0 {
		if names, err := data.Header(spool, size, meta.Format); err == nil {
			if msg := datasetunits.MissingMessage(meta.Units, names); msg != "" {
				return nil, apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the metadata part is invalid: %s", msg).
					With("fields", []apierror.Field{{Field: "body.metadata.units", Message: msg}}).
					With("missing_columns", datasetunits.Missing(meta.Units, names))
			}
		}
	}
	stored = true // from here on a failure deletes whatever reached the store
	if _, _, err := s.Blob.PutStream(ctx, key, io.NewSectionReader(spool, 0, size), limit); err != nil {
		return nil, apierror.Internal(err)
	}

	ds := &discov1.Dataset{
		ObjectMeta: metav1.ObjectMeta{
			Name: ids.ToName(id), Namespace: t.Namespace,
			Labels: resource.Labels(t.ID, discov1.LabelProject, in.ProjectID, discov1.LabelDataset, id),
		},
		Spec: discov1.DatasetSpec{
			ProjectID:   in.ProjectID,
			DisplayName: meta.Name,
			Format:      meta.Format,
			BlobKey:     key,
			SizeBytes:   size,
			SHA256:      sum,
			Variables:   meta.Variables,
			Units:       meta.Units,
			CreatedBy:   p.Actor,
		},
	}
	if fileName != "" {
		// The client's file name is kept only as a note; it never becomes part of a
		// storage key, so "../../etc/passwd" is just a string.
		ds.Annotations = map[string]string{"api.disco.dev/filename": truncate(fileName, 255)}
	}
	if err := s.Kit.Client.Create(ctx, ds); err != nil {
		return nil, resource.WriteErrorOf(err, "dataset", id)
	}
	succeeded = true
	s.Kit.AwaitCache(ctx, ds)
	return &datasetOutput{Location: s.Kit.BaseURL + "/projects/" + in.ProjectID + "/datasets/" + id, Body: Of(ds)}, nil
}

// uploadPrefix names the scratch files uploads are spooled to.
const uploadPrefix = "upload-"

// PrepareUploads makes the upload scratch directory dir private (see scratch.Dir; ""
// is a private directory under the OS temp dir) and deletes the upload files a killed
// process left in it (issue 17). It returns the directory.
func PrepareUploads(dir string, log logr.Logger) (string, error) {
	dir, err := scratch.Dir(dir)
	if err != nil {
		return "", fmt.Errorf("apiserver: %w", err)
	}
	n, err := scratch.Sweep(dir, uploadPrefix)
	if err != nil {
		return "", fmt.Errorf("apiserver: sweep %s: %w", dir, err)
	}
	if n > 0 {
		log.Info("deleted upload files left by an earlier process", "count", n, "dir", dir)
	}
	return dir, nil
}

// readRecorder remembers the error its reader returned, so a failed copy can be told
// apart: the client's body, or the server's disk.
type readRecorder struct {
	r   io.Reader
	err error
}

func (rr *readRecorder) Read(p []byte) (int, error) {
	n, err := rr.r.Read(p)
	if err != nil && err != io.EOF {
		rr.err = err
	}
	return n, err
}

func supportedFormat(f string) bool {
	for _, v := range datasetFormats {
		if f == v {
			return true
		}
	}
	return false
}

func formatUnsupported(f string) *apierror.Error {
	return apierror.New(http.StatusUnprocessableEntity, apierror.CodeFormatUnsupported,
		"dataset format %q is not supported; use parquet or csv", f).With("format", f).With("supported", datasetFormats)
}

func parseMetadata(part io.Reader) (*datasetMetadata, *apierror.Error) {
	raw, err := io.ReadAll(io.LimitReader(part, 256<<10+1))
	if err != nil {
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the metadata part could not be read")
	}
	if len(raw) > 256<<10 {
		return nil, apierror.Invalid("body.metadata", "longer than 256 KiB")
	}
	var m datasetMetadata
	if err := json.Unmarshal(raw, &m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, apierror.Invalid("body.metadata."+te.Field, "expected "+te.Type.String())
		}
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the metadata part is not valid JSON: %v", err)
	}
	var fields []apierror.Field
	if strings.TrimSpace(m.Name) == "" || len(m.Name) > 200 {
		fields = append(fields, apierror.Field{Field: "body.metadata.name", Message: "required, 1 to 200 characters"})
	} else if msg := transport.TextProblem(m.Name, false); msg != "" {
		fields = append(fields, apierror.Field{Field: "body.metadata.name", Message: msg})
	}
	if m.Format == "" {
		fields = append(fields, apierror.Field{Field: "body.metadata.format", Message: "required (parquet or csv)"})
	}
	if len(m.Variables) > 4096 {
		fields = append(fields, apierror.Field{Field: "body.metadata.variables", Message: "at most 4096 variables"})
	}
	// Units are parsed here, at the edge, by the grammar the engine uses (issue 18 item 2).
	unitProblems := datasetunits.Check(m.Units)
	for _, p := range unitProblems {
		field := "body.metadata.units"
		if p.Column != "" {
			field += "." + p.Column
		}
		fields = append(fields, apierror.Field{Field: field, Message: p.Message})
	}
	if len(fields) > 0 {
		msg := "the metadata part is invalid"
		if len(unitProblems) > 0 {
			msg += ": " + datasetunits.Message(unitProblems)
		}
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeValidation, "%s", msg).With("fields", fields)
	}
	m.Format = strings.ToLower(m.Format)
	return &m, nil
}

// sniffer keeps the head and tail of a stream, enough to tell whether a file looks like
// its declared format without reading it twice. Full parsing is profiling's job.
type sniffer struct {
	head []byte
	tail [4]byte
	n    int64
}

const sniffHead = 64 << 10

func (s *sniffer) Write(p []byte) (int, error) {
	if room := sniffHead - len(s.head); room > 0 {
		s.head = append(s.head, p[:min(room, len(p))]...)
	}
	for _, b := range p[max(0, len(p)-4):] {
		copy(s.tail[:], s.tail[1:])
		s.tail[3] = b
	}
	s.n += int64(len(p))
	return len(p), nil
}

// check returns why the file cannot be the format, or "".
func (s *sniffer) check(format string, size int64) string {
	if size == 0 {
		return "the file is empty"
	}
	switch format {
	case "parquet":
		if size < 12 || !bytes.HasPrefix(s.head, []byte("PAR1")) || string(s.tail[:]) != "PAR1" {
			return "missing the Parquet magic bytes PAR1 at the start and end"
		}
	case "csv":
		head := s.head
		if bytes.HasPrefix(head, []byte("PAR1")) {
			return "the file is Parquet, not CSV"
		}
		if bytes.IndexByte(head, 0) >= 0 {
			return "the file contains NUL bytes; it is binary, not CSV text"
		}
		if int64(len(head)) < size {
			// The head may end inside a multi-byte character.
			for i := 0; i < 3 && len(head) > 0 && !utf8.Valid(head); i++ {
				head = head[:len(head)-1]
			}
		}
		if !utf8.Valid(head) {
			return "the file is not UTF-8 text"
		}
		if int64(len(s.head)) == sniffHead && bytes.IndexByte(s.head, '\n') < 0 {
			return "no line break in the first 64 KiB; the header line is too long or the file is not CSV"
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
