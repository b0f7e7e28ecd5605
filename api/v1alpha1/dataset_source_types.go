package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DatasetSource is where the controller fetches a dataset's file from, for datasets declared
// in manifests (GitOps) instead of uploaded through the REST API (issue 14, item 7). Give
// exactly one of url, configMapRef and persistentVolumeClaim. The file is copied once into
// the tenant's blob store, hashed and profiled; status.source records where, its size and
// its SHA-256. spec.sizeBytes and spec.sha256, when given, pin the content: a file of
// another size or hash fails the dataset.
// +kubebuilder:validation:XValidation:rule="[has(self.url), has(self.configMapRef), has(self.persistentVolumeClaim)].filter(x, x).size() == 1",message="give exactly one of url, configMapRef and persistentVolumeClaim"
// +kubebuilder:validation:XValidation:rule="!has(self.secretRef) || has(self.url)",message="secretRef holds the object store's credentials for url; a configMapRef needs none"
// +kubebuilder:validation:XValidation:rule="!has(self.url) || ['s3://', 'gs://', 'azblob://', 'file:///'].exists(p, self.url.startsWith(p))",message="url must be s3://bucket/key, gs://bucket/key, azblob://container/key or file:///path"
type DatasetSource struct {
	// URL is the file in an object store: s3://bucket/key?region=eu-west-1 (AWS),
	// gs://bucket/key (Google Cloud Storage), azblob://container/key?storage_account=acct
	// (Azure Blob Storage), or file:///path under the manager's dataset source root, in the
	// directory named after the namespace. ?endpoint= may name only an endpoint the cluster
	// admin allows (add &use_path_style=true for an S3-compatible store).
	// +kubebuilder:validation:MaxLength=2048
	// +optional
	URL string `json:"url,omitempty"`
	// SecretRef names a Secret in the dataset's own namespace with the store's credentials:
	// for s3 AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN), for gs
	// service_account.json (a service account key file), for azblob AZURE_STORAGE_ACCOUNT with
	// AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN. Without it the object is read anonymously;
	// the manager's own credentials are never used.
	// +optional
	SecretRef *ObjectRef `json:"secretRef,omitempty"`
	// ConfigMapRef names a key of a ConfigMap in the dataset's namespace holding a small
	// table (data or binaryData; a ConfigMap holds at most 1 MiB).
	// +optional
	ConfigMapRef *ConfigMapKeyRef `json:"configMapRef,omitempty"`
	// PersistentVolumeClaim names a file on a claim in the dataset's namespace. A Job in the
	// namespace mounts the claim read-only and copies the file into the tenant's blob store
	// (the Ready condition says Fetching meanwhile); an installation that runs no pods
	// (disco dev) refuses it.
	// +optional
	PersistentVolumeClaim *PVCFileRef `json:"persistentVolumeClaim,omitempty"`
}

// ConfigMapKeyRef names one key of a ConfigMap in the referrer's namespace.
type ConfigMapKeyRef struct {
	// Name is the ConfigMap's metadata.name.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
	// Key is the key in the ConfigMap's data or binaryData, such as sachs.csv.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}

// PVCFileRef names a file on a PersistentVolumeClaim in the referrer's namespace.
type PVCFileRef struct {
	// ClaimName is the PersistentVolumeClaim's metadata.name, in the dataset's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	ClaimName string `json:"claimName"`
	// Path is the file's path on the volume, such as runs/2024/sachs.csv (a leading / is
	// the volume's root). It may not leave the volume, by .. or by a symbolic link.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="!self.split('/').exists(s, s == '..')",message="path may not contain .. segments: it names a file on the claim"
	Path string `json:"path"`
}

// FetchedSource is the copy of a dataset's spec.source in the tenant's blob store.
type FetchedSource struct {
	// BlobKey is where the fetched file is stored.
	BlobKey string `json:"blobKey"`
	// SizeBytes is the fetched file's size.
	SizeBytes int64 `json:"sizeBytes"`
	// SHA256 is the fetched file's hex SHA-256.
	SHA256 string `json:"sha256"`
	// FetchedAt is when the file was fetched.
	FetchedAt metav1.Time `json:"fetchedAt"`
}

// File is the blob key, size and SHA-256 of the dataset's file: the spec's for an uploaded
// file, status.source's for a fetched one ("" and 0 until it is fetched).
func (d *Dataset) File() (key string, size int64, sha256 string) {
	if d.Spec.Source == nil {
		return d.Spec.BlobKey, d.Spec.SizeBytes, d.Spec.SHA256
	}
	if s := d.Status.Source; s != nil {
		return s.BlobKey, s.SizeBytes, s.SHA256
	}
	return "", 0, ""
}

// DisplayName is the name users see: spec.displayName, or the object's name for a dataset
// applied without one (a Dataset's spec is immutable, so the controller cannot default it
// as it does a Project's; issue 14, item 6).
func (d *Dataset) DisplayName() string {
	if d.Spec.DisplayName != "" {
		return d.Spec.DisplayName
	}
	return d.Name
}
