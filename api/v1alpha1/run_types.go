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
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=256
	// +optional
	TargetVariables []string `json:"targetVariables,omitempty"`
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MaxLength=1024
	// +optional
	Constraints []string `json:"constraints,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=200
	// +optional
	MaxComplexity *int32 `json:"maxComplexity,omitempty"`
	// +kubebuilder:validation:MaxLength=64
	// +optional
	SymbolicPrior string `json:"symbolicPrior,omitempty"`
	// +kubebuilder:validation:MaxLength=64
	// +optional
	NeuralBackbone string `json:"neuralBackbone,omitempty"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000
	// +optional
	Epochs *int32 `json:"epochs,omitempty"`
	// +optional
	CrossValidate bool `json:"crossValidate,omitempty"`
}

// RunGovernance asks for negative controls and an evidence threshold.
type RunGovernance struct {
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:items:Enum=shuffled_target;noise_feature;time_shift;placebo_cause
	// +listType=set
	// +optional
	NegativeControls []string `json:"negativeControls,omitempty"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	EvidenceThreshold *float64 `json:"evidenceThreshold,omitempty"`
}

// RunSpec is a submitted run. It is immutable once created.
// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="a run's spec is immutable once submitted"
type RunSpec struct {
	// +kubebuilder:validation:Pattern=`^proj_[a-z2-7]{26}$`
	ProjectID string `json:"projectID"`
	// +kubebuilder:validation:Pattern=`^camp_[a-z2-7]{26}$`
	CampaignID string `json:"campaignID"`
	Mode       Mode   `json:"mode"`
	// +kubebuilder:validation:Pattern=`^ds_[a-z2-7]{26}$`
	DatasetID string `json:"datasetID"`
	// +optional
	Parameters RunParameters `json:"parameters,omitempty"`
	// +optional
	Governance RunGovernance `json:"governance,omitempty"`
	// ComputeUnitsEstimated is fixed at submission from the data size and parameters.
	// +kubebuilder:validation:Minimum=0
	// +optional
	ComputeUnitsEstimated int64 `json:"computeUnitsEstimated,omitempty"`
	// Seed makes the discovery reproducible.
	// +optional
	Seed int64 `json:"seed,omitempty"`
	// +kubebuilder:validation:MaxLength=128
	// +optional
	CreatedBy string `json:"createdBy,omitempty"`
}

// StageStatus is the state of one pipeline stage.
type StageStatus struct {
	// +kubebuilder:validation:MaxLength=64
	Name string `json:"name"`
	// +kubebuilder:validation:Enum=pending;running;completed;skipped;failed
	Status string `json:"status"`
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1
	// +optional
	Progress *float64 `json:"progress,omitempty"`
	// +optional
	DurationMS *int64 `json:"durationMs,omitempty"`
}

// Pipeline reports a run's progress by stage.
type Pipeline struct {
	// +optional
	CurrentStage string `json:"currentStage,omitempty"`
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Stages []StageStatus `json:"stages,omitempty"`
}

// RunSummary is the best claim of a finished run.
type RunSummary struct {
	// +optional
	BestClaimID string `json:"bestClaimID,omitempty"`
	// +optional
	BestClaimType string `json:"bestClaimType,omitempty"`
	// +optional
	BestClaimScore *float64 `json:"bestClaimScore,omitempty"`
	// +optional
	NegativeControlsPassed bool `json:"negativeControlsPassed"`
}

// ArtifactRef points at a file a run produced in the blob store.
type ArtifactRef struct {
	// ID has the art_ prefix.
	ID string `json:"id"`
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// +kubebuilder:validation:Enum=plot;model;table;report
	Kind      string      `json:"kind"`
	MediaType string      `json:"mediaType"`
	SizeBytes int64       `json:"sizeBytes"`
	SHA256    string      `json:"sha256"`
	Key       string      `json:"key"`
	CreatedAt metav1.Time `json:"createdAt"`
}

// RunStatus is the observed state of a run.
type RunStatus struct {
	// +optional
	Phase RunPhase `json:"phase,omitempty"`
	// +optional
	Progress *float64 `json:"progress,omitempty"`
	// +optional
	Pipeline Pipeline `json:"pipeline,omitempty"`
	// +optional
	ComputeUnitsUsed int64 `json:"computeUnitsUsed"`
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// +optional
	EstimatedCompletion *metav1.Time `json:"estimatedCompletion,omitempty"`
	// +optional
	CompletedAt *metav1.Time `json:"completedAt,omitempty"`
	// +optional
	DurationMS int64 `json:"durationMs,omitempty"`
	// +optional
	ClaimsCount int32 `json:"claimsCount"`
	// +optional
	ArtifactsCount int32 `json:"artifactsCount"`
	// +optional
	Summary *RunSummary `json:"summary,omitempty"`
	// ResultsKey is the blob key of results.json.
	// +optional
	ResultsKey string `json:"resultsKey,omitempty"`
	// +kubebuilder:validation:MaxItems=64
	// +optional
	Artifacts []ArtifactRef `json:"artifacts,omitempty"`
	// Message explains a failure or a wait in words a person can act on.
	// +kubebuilder:validation:MaxLength=4096
	// +optional
	Message string `json:"message,omitempty"`
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
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
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.mode`
// +kubebuilder:printcolumn:name="Dataset",type=string,JSONPath=`.spec.datasetID`
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
