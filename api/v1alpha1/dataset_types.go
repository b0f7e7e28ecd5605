package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DatasetPhase is the observed state of a dataset.
// +kubebuilder:validation:Enum=profiling;ready;failed
type DatasetPhase string

const (
	DatasetProfiling DatasetPhase = "profiling"
	DatasetReady     DatasetPhase = "ready"
	DatasetFailed    DatasetPhase = "failed"
)

// DatasetSpec describes an uploaded file. Immutable: a new file is a new dataset.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a dataset is immutable; upload a new one"
// +kubebuilder:validation:XValidation:rule="has(self.projectRef) != has(self.projectID)",message="give exactly one of projectRef (the project's name) and projectID (its REST id)"
// +kubebuilder:validation:XValidation:rule="has(self.source) != has(self.blobKey)",message="give exactly one of source (a file the controller fetches) and blobKey (a file uploaded through the REST API)"
type DatasetSpec struct {
	// ProjectRef names the dataset's Project in the same namespace: {name: signalling}.
	// Give it or projectID, not both.
	// +optional
	ProjectRef *ObjectRef `json:"projectRef,omitempty"`
	// ProjectID is the public id of the dataset's project (proj_ and 26 base32 characters):
	// the form the REST API writes. Give it or projectRef, not both.
	// +kubebuilder:validation:Pattern=`^proj_[a-z2-7]{26}$`
	// +optional
	ProjectID string `json:"projectID,omitempty"`
	// DisplayName is the dataset name shown to users, usually the file's name. Empty: the
	// object's metadata.name.
	// +kubebuilder:validation:MaxLength=200
	// +optional
	DisplayName string `json:"displayName,omitempty"`
	// Format is csv or parquet.
	// +kubebuilder:validation:Enum=csv;parquet
	Format string `json:"format"`
	// BlobKey locates a file uploaded through the REST API in the blob store; it must be
	// under the tenant's own prefix. Give it or source, not both.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +optional
	BlobKey string `json:"blobKey,omitempty"`
	// Source is where the controller fetches the file from (an object store, a ConfigMap),
	// for datasets declared in manifests. Give it or blobKey, not both.
	// +optional
	Source *DatasetSource `json:"source,omitempty"`
	// SizeBytes is the file's size; profiling refuses a file of another size. Optional
	// with source (then it pins the fetched file's size).
	// +kubebuilder:validation:Minimum=0
	// +optional
	SizeBytes int64 `json:"sizeBytes,omitempty"`
	// SHA256 is the file's hex SHA-256; profiling refuses a file with another hash.
	// Optional with source (then it pins the fetched file's content).
	// +kubebuilder:validation:Pattern=`^[a-f0-9]{64}$`
	// +optional
	SHA256 string `json:"sha256,omitempty"`
	// Variables declared at upload (optional; the profile lists the real columns).
	// +kubebuilder:validation:MaxItems=4096
	// +optional
	Variables []string `json:"variables,omitempty"`
	// Units are the SI units of columns by name, e.g. {F: "kg*m/s^2", t: s}: kg m s A K mol
	// cd, N J W Pa C V Hz ohm T F Wb H S, rad sr, powers ^2 ^-1 ^(1/2); "1" is dimensionless;
	// no prefixes (km). A run uses them as its units: constraint unless it gives its own,
	// which wins. Profiling fails the dataset if one names a missing column. Names: 1-256
	// chars without , or =; units: at most 64 chars (issue 18).
	// +kubebuilder:validation:MaxProperties=4096
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(k) >= 1 && size(k) <= 256 && !k.contains(',') && !k.contains('='))",message="units: every column name is 1 to 256 characters without ',' or '='"
	// +kubebuilder:validation:XValidation:rule="self.all(k, size(self[k]) <= 64)",message="units: every unit is at most 64 characters, e.g. kg*m/s^2"
	// +optional
	Units map[string]string `json:"units,omitempty"`
	// CreatedBy is the user or API key that uploaded the file.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	CreatedBy string `json:"createdBy,omitempty"`
}

// DatasetStatus is what profiling found.
type DatasetStatus struct {
	// ID is the dataset's public id (ds_ and 26 base32 characters); also the label
	// discovery.disco.dev/id.
	// +optional
	ID string `json:"id,omitempty"`
	// ProjectID is the public id of the dataset's project.
	// +optional
	ProjectID string `json:"projectID,omitempty"`
	// ProjectRef names the dataset's Project, whichever form the spec used.
	// +optional
	ProjectRef *ObjectRef `json:"projectRef,omitempty"`
	// Source is the copy of spec.source in the tenant's blob store, once fetched.
	// +optional
	Source *FetchedSource `json:"source,omitempty"`
	// Phase is profiling, ready (runs may use it) or failed (see message).
	// +optional
	Phase DatasetPhase `json:"phase,omitempty"`
	// Rows is the number of data rows.
	// +optional
	Rows int64 `json:"rows"`
	// Columns is the number of columns.
	// +optional
	Columns int32 `json:"columns"`
	// Variables are the column names, in file order.
	// +kubebuilder:validation:MaxItems=4096
	// +optional
	Variables []string `json:"variables,omitempty"`
	// ProfileKey is the blob key of the profile JSON.
	// +optional
	ProfileKey string `json:"profileKey,omitempty"`
	// ProfiledAt is when profiling ended.
	// +optional
	ProfiledAt *metav1.Time `json:"profiledAt,omitempty"`
	// Message explains a failure in words a person can act on.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Message string `json:"message,omitempty"`
	// ObservedGeneration is the generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Dataset is an uploaded table of observations.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=dset,categories=disco
// +kubebuilder:printcolumn:name="Display Name",type=string,JSONPath=`.spec.displayName`
// +kubebuilder:printcolumn:name="Format",type=string,JSONPath=`.spec.format`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Rows",type=integer,JSONPath=`.status.rows`
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.sizeBytes`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Dataset struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DatasetSpec   `json:"spec,omitempty"`
	Status DatasetStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// DatasetList is a list of datasets.
type DatasetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Dataset `json:"items"`
}

func init() { SchemeBuilder.Register(&Dataset{}, &DatasetList{}) }
