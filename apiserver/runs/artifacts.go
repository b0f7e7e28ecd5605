package runs

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/blob"
)

type Artifact struct {
	ID        string    `json:"id" example:"art_abcdefghijklmnopqrstuvwxyz"`
	RunID     string    `json:"run_id"`
	Name      string    `json:"name"`
	Kind      string    `json:"kind" enum:"plot,model,table,report"`
	MediaType string    `json:"media_type"`
	SizeBytes int64     `json:"size_bytes"`
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"created_at"`
}

type artifactItem struct {
	runID string
	ref   discov1.ArtifactRef
}

func artifactOf(a artifactItem) Artifact {
	return Artifact{
		ID: a.ref.ID, RunID: a.runID, Name: a.ref.Name, Kind: a.ref.Kind, MediaType: a.ref.MediaType,
		SizeBytes: a.ref.SizeBytes, SHA256: a.ref.SHA256, CreatedAt: resource.UTC(a.ref.CreatedAt),
	}
}

var artifactSort = pagination.Spec[artifactItem]{
	Name: "artifacts",
	Fields: map[string]func(artifactItem) pagination.Key{
		"created_at": func(a artifactItem) pagination.Key { return pagination.Time(a.ref.CreatedAt.Time) },
		"name":       func(a artifactItem) pagination.Key { return pagination.String(a.ref.Name) },
		"size_bytes": func(a artifactItem) pagination.Key { return pagination.Number(float64(a.ref.SizeBytes)) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Asc,
	ID: func(a artifactItem) string { return a.ref.ID },
}

func (s *handlers) registerArtifacts(g huma.API, runBase string) {
	transport.Register(g, huma.Operation{
		OperationID: "listArtifacts", Method: http.MethodGet, Path: runBase + "/artifacts",
		Summary: "List a run's artifacts", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
	}, auth.RunsRead, s.listArtifacts)
	transport.Register(g, huma.Operation{
		OperationID: "getArtifactContent", Method: http.MethodGet, Path: runBase + "/artifacts/{artifact_id}/content",
		Summary: "Download an artifact", Tags: []string{"Runs"}, Errors: []int{http.StatusNotFound},
		Responses: map[string]*huma.Response{"200": {
			Description: "The artifact's bytes, with its media type.",
			Content:     map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}},
		}},
	}, auth.RunsRead, s.getArtifactContent)
}

type listArtifactsInput struct {
	RunPath
	resource.PageParams
	Sort string `query:"sort" enum:"created_at,name,size_bytes" doc:"Field to sort by; default created_at ascending."`
	Kind string `query:"kind" enum:"plot,model,table,report" doc:"Only artifacts of this kind."`
}

func (s *handlers) listArtifacts(ctx context.Context, in *listArtifactsInput) (*resource.ListOutput[Artifact], error) {
	r, err := s.run(ctx, &in.RunPath)
	if err != nil {
		return nil, err
	}
	items := make([]artifactItem, 0, len(r.Status.Artifacts))
	for _, a := range r.Status.Artifacts {
		if in.Kind == "" || a.Kind == in.Kind {
			items = append(items, artifactItem{runID: in.RunID, ref: a})
		}
	}
	return resource.Paginate(s.Kit, items, artifactSort, in.PageParams, in.Sort, resource.FilterKey("run", in.RunID, "kind", in.Kind), artifactOf)
}

func (s *handlers) getArtifactContent(ctx context.Context, in *struct {
	RunPath
	ArtifactID string `path:"artifact_id" maxLength:"64"`
}) (*huma.StreamResponse, error) {
	r, err := s.run(ctx, &in.RunPath)
	if err != nil {
		return nil, err
	}
	var ref *discov1.ArtifactRef
	for i := range r.Status.Artifacts {
		if r.Status.Artifacts[i].ID == in.ArtifactID {
			ref = &r.Status.Artifacts[i]
		}
	}
	if ref == nil {
		return nil, apierror.NotFound("artifact", in.ArtifactID)
	}
	if s.Blob == nil {
		return nil, apierror.NotImplemented("artifact storage")
	}
	// The key comes from the Run's status, which the run's engine writes: stream it only
	// when it is one of this run's own blobs, under the caller's tenant (issue 17 item 2),
	// and take its length from the store.
	_, t := auth.Who(ctx)
	rc, size, err := s.Blob.GetRun(ctx, blob.RunRefOf(t.ID, r, r.Status.ResultsKey), ref.Key)
	switch {
	case errors.Is(err, blob.ErrForeignKey):
		s.Kit.Log.Info("warning: refused an artifact key outside the run's own prefix", "run", r.Namespace+"/"+r.Name,
			"artifact_id", in.ArtifactID, "key", ref.Key, "request_id", transport.RequestID(ctx))
		return nil, apierror.NotFound("artifact", in.ArtifactID)
	case errors.Is(err, blob.ErrNotFound):
		return nil, apierror.NotFound("artifact", in.ArtifactID)
	case err != nil:
		return nil, apierror.Internal(err)
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer rc.Close()
		mt := ref.MediaType
		if mt == "" {
			mt = "application/octet-stream"
		}
		hctx.SetHeader("Content-Type", mt)
		hctx.SetHeader("Content-Length", strconv.FormatInt(size, 10))
		hctx.SetHeader("ETag", `"`+ref.SHA256+`"`)
		hctx.SetHeader("X-Content-Type-Options", "nosniff")
		hctx.SetHeader("Content-Disposition", `attachment; filename="`+safeFileName(ref.Name)+`"`)
		hctx.SetStatus(http.StatusOK)
		_, _ = io.Copy(hctx.BodyWriter(), rc)
	}}, nil
}

// safeFileName keeps a name usable in a Content-Disposition header: no path, quotes or
// control characters.
func safeFileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' || r == ';' {
			return '_'
		}
		return r
	}, name)
	if name == "" || name == "." || name == ".." {
		return "artifact"
	}
	return name
}
