package datasets

import (
	"cmp"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/scratch"
)

type Dataset struct {
	ID           string            `json:"id" example:"ds_abcdefghijklmnopqrstuvwxyz"`
	ProjectID    string            `json:"project_id"`
	Name         string            `json:"name"`
	Format       string            `json:"format" enum:"parquet,csv"`
	Status       string            `json:"status" enum:"profiling,ready,failed"`
	SizeBytes    int64             `json:"size_bytes"`
	SHA256       string            `json:"sha256" doc:"Hex SHA-256 of the uploaded file."`
	Rows         int64             `json:"rows" doc:"Row count; 0 until profiled."`
	Columns      int32             `json:"columns" doc:"Column count; 0 until profiled."`
	Variables    []string          `json:"variables"`
	Units        map[string]string `json:"units,omitempty" doc:"SI units of columns, by column name, as declared at upload (e.g. {\"F\": \"kg*m/s^2\"}); absent when none were declared. Runs on the dataset use them as a units: constraint unless they give their own."`
	CreatedAt    time.Time         `json:"created_at"`
	CreatedBy    string            `json:"created_by"`
	ProfileReady bool              `json:"profile_ready"`
	Message      string            `json:"message,omitempty" doc:"Why profiling failed."`
}

// Phase is the dataset's phase, profiling until the controller has set one.
func Phase(d *discov1.Dataset) discov1.DatasetPhase {
	return cmp.Or(d.Status.Phase, discov1.DatasetProfiling)
}

// Of is the wire form of a dataset.
func Of(d *discov1.Dataset) Dataset {
	vars := d.Status.Variables
	if len(vars) == 0 {
		vars = d.Spec.Variables
	}
	if vars == nil {
		vars = []string{}
	}
	phase := Phase(d)
	_, size, sum := d.File()
	return Dataset{
		ID:           d.ID(),
		ProjectID:    d.ProjectID(),
		Name:         d.DisplayName(),
		Format:       d.Spec.Format,
		Status:       string(phase),
		SizeBytes:    size,
		SHA256:       sum,
		Rows:         d.Status.Rows,
		Columns:      d.Status.Columns,
		Variables:    vars,
		Units:        d.Spec.Units,
		CreatedAt:    resource.UTC(d.CreationTimestamp),
		CreatedBy:    d.Spec.CreatedBy,
		ProfileReady: phase == discov1.DatasetReady && d.Status.ProfileKey != "",
		Message:      scratch.Redact(d.Status.Message),
	}
}

type ColumnProfile struct {
	Name      string           `json:"name"`
	DType     string           `json:"dtype"`
	Mean      *float64         `json:"mean"`
	Std       *float64         `json:"std"`
	NullCount int              `json:"null_count"`
	Min       *float64         `json:"min" doc:"Smallest finite value of a numeric column; null when mean is."`
	Max       *float64         `json:"max" doc:"Largest finite value of a numeric column; null when mean is."`
	Histogram *ColumnHistogram `json:"histogram" doc:"Distribution of a numeric column's non-null values; null for text columns, columns without a value, and profiles made before histograms existed."`

	DistinctValues *int         `json:"distinct_values" doc:"Distinct values of a categorical text column (at most 256 distinct values of at most 128 bytes, fewer in a file with many text columns); null otherwise."`
	TopValues      []ValueCount `json:"top_values" maxItems:"10" doc:"A categorical text column's 10 most frequent values, exactly counted, most frequent first; null otherwise."`
}

// ValueCount is a text value and the number of cells holding it.
type ValueCount struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// ColumnHistogram is engine/data.Histogram as the API serves it.
type ColumnHistogram struct {
	Low    float64 `json:"low" doc:"Lower edge of the first bin."`
	High   float64 `json:"high" doc:"Upper edge of the last bin; equal to low when the column holds one value."`
	Counts []int   `json:"counts" maxItems:"20" doc:"Values per equal-width bin: bin i covers [low + i·w, low + (i+1)·w) with w = (high − low)/len(counts), the last bin also holding high. 20 bins over [min, max], or one per integer, centred on it, for an int64 or bool column spanning fewer than 20 integers. Empty when the column holds only ±Inf."`
	NegInf int     `json:"neg_inf" doc:"-Inf values, not in any bin."`
	PosInf int     `json:"pos_inf" doc:"+Inf values, not in any bin."`
}

type DataQuality struct {
	Completeness    float64 `json:"completeness"`
	DuplicateRows   int     `json:"duplicate_rows"`
	OutlierFraction float64 `json:"outlier_fraction"`
}

type DatasetProfile struct {
	DatasetID   string          `json:"dataset_id"`
	Status      string          `json:"status" enum:"ready"`
	RowCount    int             `json:"row_count"`
	ColumnCount int             `json:"column_count"`
	Columns     []ColumnProfile `json:"columns"`
	Quality     DataQuality     `json:"quality"`
	ProfiledAt  *time.Time      `json:"profiled_at"`
}

// datasetMetadata is the JSON text part of an upload.
type datasetMetadata struct {
	Name      string   `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Format    string   `json:"format" required:"true"`
	Variables []string `json:"variables,omitempty" maxItems:"4096"`
	// Units are checked by internal/datasetunits; the schema states the bounds.
	Units map[string]string `json:"units,omitempty" maxProperties:"4096" doc:"SI units of columns, by column name: a product of kg m s A K mol cd N J W Pa C V Hz ohm T F Wb H S rad sr with * / and ^ powers, e.g. {\"F\": \"kg*m/s^2\", \"t\": \"s\", \"E\": \"J/(mol*K)\"}; \"1\" is dimensionless; no prefixes (km). Every column must be in the file. Names of 1 to 256 bytes without , or =; units of at most 64 bytes."`
}

type datasetOutput struct {
	Location string `header:"Location"`
	Body     Dataset
}

type DatasetPath struct {
	resource.ProjectPath
	DatasetID string `path:"dataset_id" maxLength:"64" doc:"Dataset id (ds_ prefix)."`
}
