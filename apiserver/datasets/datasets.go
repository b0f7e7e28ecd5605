package datasets

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/scratch"
)

// Deps is what the datasets room needs.
type Deps struct {
	Kit *resource.Kit
	// Blob holds dataset files and profiles; nil answers 501.
	Blob *blob.Bucket
	// MaxUploadBytes bounds an upload.
	MaxUploadBytes int64
	// ScratchDir holds uploads while they are checked (PrepareUploads).
	ScratchDir string
}

type handlers struct{ Deps }

// Register adds the dataset operations under /projects/{project_id}/datasets.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/projects/{project_id}/datasets")
	transport.Register(g, huma.Operation{
		OperationID: "uploadDataset", Method: http.MethodPost, Path: "",
		Summary: "Upload a dataset", Tags: []string{"Datasets"}, DefaultStatus: http.StatusCreated,
		Description: "multipart/form-data with a binary part `file` and a JSON text part `metadata` " +
			"({name, format, variables, units}). Formats: parquet, csv. units (optional) maps column names to SI unit " +
			"strings such as kg*m/s^2; a unit that does not parse, or one for a column the file lacks, is refused (400 " +
			"validation_error naming the column), and runs on the dataset use the units as a units: constraint unless " +
			"they give their own. The file is streamed to storage; the " +
			"dataset starts in status profiling and becomes ready when profiling ends. A file with more than " +
			"4096 columns is refused (422 dataset_too_wide, details.columns and details.limit). An archived " +
			"project accepts no uploads (409 conflict, details.status archived).",
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity},
		Metadata: map[string]any{transport.MetaRaw: true},
	}, auth.DatasetsWrite, s.uploadDataset)
	documentUpload(api)

	transport.Register(g, huma.Operation{
		OperationID: "listDatasets", Method: http.MethodGet, Path: "",
		Summary: "List a project's datasets", Tags: []string{"Datasets"}, Errors: []int{http.StatusNotFound},
	}, auth.DatasetsRead, s.listDatasets)
	transport.Register(g, huma.Operation{
		OperationID: "getDataset", Method: http.MethodGet, Path: "/{dataset_id}",
		Summary: "Get a dataset", Tags: []string{"Datasets"}, Errors: []int{http.StatusNotFound},
	}, auth.DatasetsRead, s.getDataset)
	transport.Register(g, huma.Operation{
		OperationID: "getDatasetProfile", Method: http.MethodGet, Path: "/{dataset_id}/profile",
		Summary: "Get a dataset's profile", Tags: []string{"Datasets"},
		Description: "Answers 409 dataset_not_ready while the dataset is profiling (or if profiling failed).",
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, auth.DatasetsRead, s.getDatasetProfile)
}

type listDatasetsInput struct {
	resource.ProjectPath
	resource.PageParams
	Sort   string `query:"sort" enum:"created_at,name,size_bytes" doc:"Field to sort by; default created_at."`
	Status string `query:"status" enum:"profiling,ready,failed" doc:"Only datasets with this status."`
	Format string `query:"format" enum:"parquet,csv" doc:"Only datasets of this format."`
}

var datasetSort = pagination.Spec[*discov1.Dataset]{
	Name: "datasets",
	Fields: map[string]func(*discov1.Dataset) pagination.Key{
		"created_at": func(d *discov1.Dataset) pagination.Key { return resource.CreatedKey(d) },
		"name":       func(d *discov1.Dataset) pagination.Key { return pagination.String(strings.ToLower(d.DisplayName())) },
		"size_bytes": func(d *discov1.Dataset) pagination.Key {
			_, size, _ := d.File()
			return pagination.Number(float64(size))
		},
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(d *discov1.Dataset) string { return d.Name },
}

func (s *handlers) listDatasets(ctx context.Context, in *listDatasetsInput) (*resource.ListOutput[Dataset], error) {
	_, t := auth.Who(ctx)
	if _, err := s.Kit.Project(ctx, in.ProjectID); err != nil {
		return nil, err
	}
	var list discov1.DatasetList
	if err := s.Kit.List(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Project: in.ProjectID}); err != nil {
		return nil, apierror.Internal(err)
	}
	items := make([]*discov1.Dataset, 0, len(list.Items))
	for i := range list.Items {
		d := &list.Items[i]
		if d.DeletionTimestamp != nil || (in.Status != "" && string(Phase(d)) != in.Status) || (in.Format != "" && d.Spec.Format != in.Format) {
			continue
		}
		items = append(items, d)
	}
	return resource.Paginate(s.Kit, items, datasetSort, in.PageParams, in.Sort, resource.FilterKey("project", in.ProjectID, "status", in.Status, "format", in.Format), Of)
}

// dataset loads a dataset of a reachable project.
func (s *handlers) dataset(ctx context.Context, projectID, id string) (*discov1.Dataset, error) {
	if _, err := s.Kit.Project(ctx, projectID); err != nil {
		return nil, err
	}
	var d discov1.Dataset
	if err := s.Kit.GetIn(ctx, "dataset", ids.Dataset, id, &d); err != nil {
		return nil, err
	}
	if d.ProjectID() != projectID {
		return nil, apierror.NotFound("dataset", id)
	}
	return &d, nil
}

func (s *handlers) getDataset(ctx context.Context, in *DatasetPath) (*struct{ Body Dataset }, error) {
	d, err := s.dataset(ctx, in.ProjectID, in.DatasetID)
	if err != nil {
		return nil, err
	}
	return &struct{ Body Dataset }{Body: Of(d)}, nil
}

func (s *handlers) getDatasetProfile(ctx context.Context, in *DatasetPath) (*struct{ Body DatasetProfile }, error) {
	d, err := s.dataset(ctx, in.ProjectID, in.DatasetID)
	if err != nil {
		return nil, err
	}
	if Phase(d) != discov1.DatasetReady || d.Status.ProfileKey == "" {
		e := apierror.New(http.StatusConflict, apierror.CodeDatasetNotReady, "the dataset is %s; its profile is not available", Phase(d)).
			With("dataset_id", in.DatasetID).With("status", string(Phase(d)))
		if d.Status.Message != "" {
			e = e.With("reason", scratch.Redact(d.Status.Message))
		}
		return nil, e
	}
	if s.Blob == nil {
		return nil, apierror.NotImplemented("dataset storage")
	}
	// The status names the key; only the tenant's own keys are read (issue 14 item 3).
	_, t := auth.Who(ctx)
	if !blob.DatasetOwnsProfileKey(t.ID, t.Namespace, d.Name, d.Status.ProfileKey) {
		s.Kit.Log.Info("warning: refused a dataset profile key outside the tenant's prefix", "dataset", d.Namespace+"/"+d.Name,
			"key", d.Status.ProfileKey, "request_id", transport.RequestID(ctx))
		return nil, apierror.NotFound("dataset profile", in.DatasetID)
	}
	rc, err := s.Blob.Get(ctx, d.Status.ProfileKey)
	if err != nil {
		return nil, apierror.Internal(err)
	}
	defer rc.Close()
	var prof DatasetProfile
	if err := json.NewDecoder(io.LimitReader(rc, 64<<20)).Decode(&prof); err != nil {
		return nil, apierror.Internal(err)
	}
	prof.DatasetID = in.DatasetID
	prof.Status = string(discov1.DatasetReady)
	if prof.Columns == nil {
		prof.Columns = []ColumnProfile{}
	}
	if d.Status.ProfiledAt != nil {
		prof.ProfiledAt = resource.UTCPtr(d.Status.ProfiledAt)
	}
	return &struct{ Body DatasetProfile }{Body: prof}, nil
}
