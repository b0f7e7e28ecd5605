package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RunPhase is the observed lifecycle state of a run.
// +kubebuilder:validation:Enum=queued;running;completed;failed;cancelled
type RunPhase string

const (
	RunQueued    RunPhase = "queued"
	RunRunning   RunPhase = "running"
	RunCompleted RunPhase = "completed"
	RunFailed    RunPhase = "failed"
	RunCancelled RunPhase = "cancelled"
)

// Finished reports whether the phase is terminal.
func (p RunPhase) Finished() bool {
	return p == RunCompleted || p == RunFailed || p == RunCancelled
}

// Pipeline stage names, in order.
var PipelineStages = []string{
	"data_validation", "feature_extraction", "neural_pretraining",
	"symbolic_regression", "negative_controls", "claim_generation",
}

// RunParameters are the discovery parameters of a run (the contract's run parameters).
type RunParameters struct {
	// TargetVariables are the dataset columns to explain (law modes). Empty: the last numeric
	// column that is not a time, trajectory or excluded column. Causal runs ignore it.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=256
	// +optional
	TargetVariables []string `json:"targetVariables,omitempty"`
	// Constraints are "key:value" strings that narrow the search: operators:+,-,*,sin
	// (allowed operators), include:a,b and exclude:c (columns), max_depth:N (1..20),
	// max_lag:N (1..50), alpha:P (0..1, the causal tests' significance), time:<column> and
	// trajectory:<column> (columns that order and group the rows).
	// dynamics:x,y (needs time:; symbolic mode) discovers the equations of motion dx/dt, dy/dt.
	// units:x=m,t=s,y=m/s^2 declares SI units of columns: the symbolic search then refuses
	// dimensionally inconsistent laws and searches the dimensionless groups.
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	// +optional
	Constraints []string `json:"constraints,omitempty"`
	// MaxComplexity bounds the size of a discovered expression (nodes of its tree).
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=200
	// +optional
	MaxComplexity *int32 `json:"maxComplexity,omitempty"`
	// SymbolicPrior names the operator set of the symbolic search: default, physics,
	// polynomial or trigonometric. An operators: constraint takes precedence.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	SymbolicPrior string `json:"symbolicPrior,omitempty"`
	// NeuralBackbone is the surrogate network of neural modes: "mlp-<depth>x<width>" (for
	// example mlp-2x64) or "mlp-<width>-<width>-..." (for example mlp-64-32); width 1..1024,
	// depth 1..8. Empty: mlp-2x64.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	NeuralBackbone string `json:"neuralBackbone,omitempty"`
	// Epochs is how long neural modes train the surrogate.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Epochs *int32 `json:"epochs,omitempty"`
	// CrossValidate scores each law on held-out folds (the claim's cross_validation_score).
	// +optional
	CrossValidate bool `json:"crossValidate,omitempty"`
}

// RunGovernance asks for negative controls and an evidence threshold.
type RunGovernance struct {
	// NegativeControls are the controls every claim of the run must pass: shuffled_target,
	// noise_feature, time_shift, placebo_cause. Empty: the mode's defaults.
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Enum=shuffled_target;noise_feature;time_shift;placebo_cause
	// +listType=set
	// +optional
	NegativeControls []string `json:"negativeControls,omitempty"`
	// EvidenceThreshold (0..1) is reported in the run's summary: how many claims reach it.
	// It does not change what is discovered; promotion uses the project's governance.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	EvidenceThreshold *float64 `json:"evidenceThreshold,omitempty"`
}

// RunSpec is a submitted run. It is immutable once created.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a run's spec is immutable once submitted"
// +kubebuilder:validation:XValidation:rule="has(self.campaignRef) != has(self.campaignID)",message="give exactly one of campaignRef (the campaign's name) and campaignID (its REST id)"
// +kubebuilder:validation:XValidation:rule="has(self.datasetRef) != has(self.datasetID)",message="give exactly one of datasetRef (the dataset's name) and datasetID (its REST id)"
// +kubebuilder:validation:XValidation:rule="!has(self.projectID) || has(self.campaignID)",message="projectID goes with campaignID (the REST form); with campaignRef the project is the campaign's"
type RunSpec struct {
	// CampaignRef names the Campaign in the same namespace whose budget the run uses:
	// {name: observational}. The run's project is the campaign's. Give it or campaignID.
	// +optional
	CampaignRef *ObjectRef `json:"campaignRef,omitempty"`
	// DatasetRef names the Dataset in the same namespace to run on. It must be in the
	// campaign's project and profiled (ready). Give it or datasetID.
	// +optional
	DatasetRef *ObjectRef `json:"datasetRef,omitempty"`
	// ProjectID is the public id of the run's project: "proj_" and 26 base32 characters
	// (a-z, 2-7), as the REST API and the Project's status.id show it. The REST form; it
	// must be the campaign's project.
	// +kubebuilder:validation:Pattern=`^proj_[a-z2-7]{26}$`
	// +optional
	ProjectID string `json:"projectID,omitempty"`
	// CampaignID is the public id of the campaign whose budget the run uses: "camp_" and 26
	// base32 characters. The REST form of campaignRef.
	// +kubebuilder:validation:Pattern=`^camp_[a-z2-7]{26}$`
	// +optional
	CampaignID string `json:"campaignID,omitempty"`
	// Mode is the discovery method: symbolic (laws by symbolic regression), neural (a
	// surrogate network), neuro_symbolic (laws distilled from the surrogate) or causal
	// (a causal graph).
	Mode Mode `json:"mode"`
	// DatasetID is the public id of the dataset to run on: "ds_" and 26 base32 characters.
	// It must be in the same project and profiled (ready). The REST form of datasetRef.
	// +kubebuilder:validation:Pattern=`^ds_[a-z2-7]{26}$`
	// +optional
	DatasetID string `json:"datasetID,omitempty"`
	// Parameters are the discovery parameters.
	// +optional
	Parameters RunParameters `json:"parameters,omitempty"`
	// Governance asks for negative controls and an evidence threshold.
	// +optional
	Governance RunGovernance `json:"governance,omitempty"`
	// ComputeUnitsEstimated is fixed at submission from the data size and parameters; the
	// campaign reserves it while the run is queued or running. Admission raises a lower
	// value to the estimate the REST API would reserve.
	// +kubebuilder:validation:Minimum=0
	// +optional
	ComputeUnitsEstimated int64 `json:"computeUnitsEstimated,omitempty"`
	// Seed makes the discovery reproducible.
	// +optional
	Seed int64 `json:"seed,omitempty"`
	// CreatedBy is who submitted the run: the REST principal, or the Kubernetes user.
	// +kubebuilder:validation:MaxLength=128
	// +optional
	CreatedBy string `json:"createdBy,omitempty"`
}

// StageStatus is the state of one pipeline stage.
type StageStatus struct {
	// Name is the stage: data_validation, feature_extraction, neural_pretraining,
	// symbolic_regression, negative_controls or claim_generation.
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
	// Status is pending, running, completed, skipped or failed.
	// +kubebuilder:validation:Enum=pending;running;completed;skipped;failed
	Status string `json:"status"`
	// Progress of a running stage, 0..1.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	Progress *float64 `json:"progress,omitempty"`
	// DurationMS is how long the stage took, in milliseconds.
	// +optional
	DurationMS *int64 `json:"durationMs,omitempty"`
}

// Pipeline reports a run's progress by stage.
type Pipeline struct {
	// CurrentStage is the stage running now (or the last one, once the run ended).
	// +optional
	CurrentStage string `json:"currentStage,omitempty"`
	// Stages are the run's stages in order, each with its status.
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Stages []StageStatus `json:"stages,omitempty"`
}

// RunSummary is the best claim of a finished run.
type RunSummary struct {
	// BestClaimID is the public id ("clm_...") of the run's highest-scoring claim; its
	// Claim object is named by the id with "_" replaced by "-".
	// +optional
	BestClaimID string `json:"bestClaimID,omitempty"`
	// BestClaimType is law, causal or conservation.
	// +optional
	BestClaimType string `json:"bestClaimType,omitempty"`
	// BestClaimScore is the best claim's Truth Dial score, 0..1.
	// +optional
	BestClaimScore *float64 `json:"bestClaimScore,omitempty"`
	// NegativeControlsPassed says whether the best claim passed every negative control.
	// +optional
	NegativeControlsPassed bool `json:"negativeControlsPassed"`
}

// ArtifactRef points at a file a run produced in the blob store.
type ArtifactRef struct {
	// ID has the art_ prefix.
	ID string `json:"id"`
	// Name is the file's name, for example causal_graph.svg.
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Kind is plot, model, table or report.
	// +kubebuilder:validation:Enum=plot;model;table;report
	Kind string `json:"kind"`
	// MediaType is the file's content type, for example image/svg+xml.
	MediaType string `json:"mediaType"`
	// SizeBytes is the file's size.
	SizeBytes int64 `json:"sizeBytes"`
	// SHA256 is the file's hex SHA-256.
	SHA256 string `json:"sha256"`
	// Key is the file's blob key, under the run's own prefix.
	Key string `json:"key"`
	// CreatedAt is when the run wrote the file.
	CreatedAt metav1.Time `json:"createdAt"`
}

// RunStatus is the observed state of a run.
type RunStatus struct {
	// ID is the run's public id (run_ and 26 base32 characters); also the label
	// discovery.disco.dev/id.
	// +optional
	ID string `json:"id,omitempty"`
	// ProjectID, CampaignID and DatasetID are the public ids of the run's project (its
	// campaign's), campaign and dataset, whichever form the spec used.
	// +optional
	ProjectID string `json:"projectID,omitempty"`
	// CampaignID is the public id of the run's campaign.
	// +optional
	CampaignID string `json:"campaignID,omitempty"`
	// DatasetID is the public id of the run's dataset.
	// +optional
	DatasetID string `json:"datasetID,omitempty"`
	// CampaignRef names the run's Campaign, whichever form the spec used.
	// +optional
	CampaignRef *ObjectRef `json:"campaignRef,omitempty"`
	// DatasetRef names the run's Dataset, whichever form the spec used.
	// +optional
	DatasetRef *ObjectRef `json:"datasetRef,omitempty"`
	// Phase is queued, running, completed, failed or cancelled.
	// +optional
	Phase RunPhase `json:"phase,omitempty"`
	// Progress of the whole run, 0..1.
	// +optional
	Progress *float64 `json:"progress,omitempty"`
	// Pipeline is the progress by stage.
	// +optional
	Pipeline Pipeline `json:"pipeline,omitempty"`
	// ComputeUnitsUsed is what the run charged to its campaign's budget: one unit is about
	// one second of engine time, measured from the engine's start to its end.
	// +optional
	ComputeUnitsUsed int64 `json:"computeUnitsUsed"`
	// StartedAt is when the engine started.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// EstimatedCompletion is when the run is expected to end, from its progress.
	// +optional
	EstimatedCompletion *metav1.Time `json:"estimatedCompletion,omitempty"`
	// CompletedAt is when the run ended.
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
	// DurationMS is the engine's running time, in milliseconds.
	// +optional
	DurationMS int64 `json:"durationMs,omitempty"`
	// ClaimsCount is how many claims the run produced.
	// +optional
	ClaimsCount int32 `json:"claimsCount"`
	// ArtifactsCount is how many files the run produced.
	// +optional
	ArtifactsCount int32 `json:"artifactsCount"`
	// Summary names the best claim once the run completed.
	// +optional
	Summary *RunSummary `json:"summary,omitempty"`
	// ResultsKey is the blob key of results.json.
	// +optional
	ResultsKey string `json:"resultsKey,omitempty"`
	// Artifacts are the files the run produced.
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Artifacts []ArtifactRef `json:"artifacts,omitempty"`
	// Message explains a failure or a wait in words a person can act on.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Message string `json:"message,omitempty"`
	// ObservedGeneration is the generation the controller last reconciled.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Admitted (the engine started, or WaitingForCapacity and why), Ready,
	// Succeeded and Failed (for kubectl wait and GitOps health checks).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Run is one discovery run over a dataset.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=drun,categories=disco
// +kubebuilder:selectablefield:JSONPath=`.status.phase`
// +kubebuilder:selectablefield:JSONPath=`.spec.mode`
// +kubebuilder:selectablefield:JSONPath=`.spec.campaignID`
// +kubebuilder:selectablefield:JSONPath=`.spec.datasetID`
// +kubebuilder:selectablefield:JSONPath=`.spec.campaignRef.name`
// +kubebuilder:selectablefield:JSONPath=`.spec.datasetRef.name`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="Dataset",type=string,JSONPath=`.status.datasetRef.name`
// +kubebuilder:printcolumn:name="Stage",type=string,JSONPath=`.status.pipeline.currentStage`
// +kubebuilder:printcolumn:name="Claims",type=integer,JSONPath=`.status.claimsCount`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Run struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RunSpec   `json:"spec,omitempty"`
	Status RunStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// RunList is a list of runs.
type RunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Run `json:"items"`
}

func init() { SchemeBuilder.Register(&Run{}, &RunList{}) }
