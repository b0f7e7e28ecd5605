package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/discolab/disco/engine/controls"
	"github.com/discolab/disco/engine/symbolic"
)

// ClaimType is what a claim asserts, as it appears on the wire.
type ClaimType string

// Claim types.
const (
	ClaimLaw          ClaimType = "law"
	ClaimCausal       ClaimType = "causal"
	ClaimConservation ClaimType = "conservation"
)

// Result is what a run produces; it is written as results.json.
type Result struct {
	Claims    []Claim    `json:"claims"`
	Summary   Summary    `json:"summary"`
	Artifacts []Artifact `json:"artifacts"`
}

// Claim is one discovered law, causal link or conserved quantity. Its JSON
// form follows the REST contract; fields that do not belong to the claim's
// type are left out.
type Claim struct {
	Type     ClaimType `json:"type"`
	Summary  string    `json:"summary"`
	Score    float64   `json:"score"`
	Scope    Scope     `json:"scope"`
	Evidence Evidence  `json:"evidence"`
	// Law and conservation claims.
	Expression string `json:"expression,omitempty"`
	// Target is the explained variable of a law claim.
	Target string `json:"target,omitempty"`
	// Conservation claims.
	Variables []string `json:"variables,omitempty"`
	// Causal claims.
	Cause               string   `json:"cause,omitempty"`
	Effect              string   `json:"effect,omitempty"`
	Direction           string   `json:"direction,omitempty"`
	TemporalScope       string   `json:"temporal_scope,omitempty"`
	InterventionMarkers []string `json:"intervention_markers,omitempty"`
}

// MarshalJSON writes intervention_markers as [] rather than leaving it out
// for causal claims, as the contract lists it as an array.
func (c Claim) MarshalJSON() ([]byte, error) {
	type plain Claim
	if c.Type != ClaimCausal {
		return json.Marshal(plain(c))
	}
	markers := c.InterventionMarkers
	if markers == nil {
		markers = []string{}
	}
	c.InterventionMarkers = nil
	return json.Marshal(struct {
		plain
		InterventionMarkers []string `json:"intervention_markers"`
	}{plain(c), markers})
}

// Scope bounds where a claim was observed to hold.
type Scope struct {
	Variables            []string `json:"variables"`
	Domain               string   `json:"domain"`
	ConstraintsSatisfied []string `json:"constraints_satisfied,omitempty"`
}

// Evidence carries the measurements behind a claim. Which fields are set
// depends on the claim type (see the package documentation).
type Evidence struct {
	// Law claims.
	RSquared             *float64 `json:"r_squared,omitempty"`
	HeldOutRSquared      *float64 `json:"held_out_r_squared,omitempty"`
	CrossValidationScore *float64 `json:"cross_validation_score,omitempty"`
	Complexity           int      `json:"complexity,omitempty"`
	// DimensionallyConsistent says whether the law is dimensionally
	// consistent (engine/symbolic dims.go); absent unless the run declares
	// the units of its target and of every variable the law uses.
	DimensionallyConsistent *bool `json:"dimensionally_consistent,omitempty"`
	// Law claims of a dynamics run (dx/dt): the held-out simulation's
	// horizon of validity, the persistence forecast's, the simulation's
	// normalised RMS error, and each term's ensemble inclusion probability.
	SimulationHorizon  *float64           `json:"simulation_horizon,omitempty"`
	PersistenceHorizon *float64           `json:"persistence_horizon,omitempty"`
	SimulationNRMSE    *float64           `json:"simulation_nrmse,omitempty"`
	TermInclusion      map[string]float64 `json:"term_inclusion,omitempty"`
	// Causal claims.
	CausalConfidence       *float64 `json:"causal_confidence,omitempty"`
	EffectStrength         *float64 `json:"effect_strength,omitempty"`
	GrangerScore           *float64 `json:"granger_score,omitempty"`
	InterventionEffectSize *float64 `json:"intervention_effect_size,omitempty"`
	PValue                 *float64 `json:"p_value,omitempty"`
	OrientedBy             string   `json:"oriented_by,omitempty"`
	// Conservation claims.
	RelativeVariation *float64 `json:"relative_variation,omitempty"`
	Trajectories      int      `json:"trajectories,omitempty"`
	// All claims.
	BootstrapStability     float64                    `json:"bootstrap_stability"`
	NegativeControlsPassed bool                       `json:"negative_controls_passed"`
	NegativeControls       map[string]controls.Result `json:"negative_controls"`
}

// SearchReport is how one symbolic search ended.
type SearchReport struct {
	Target      string              `json:"target"`
	Generations int                 `json:"generations"`
	Stop        symbolic.StopReason `json:"stop"`
}

// Summary describes the run as a whole.
type Summary struct {
	Mode    Mode     `json:"mode"`
	Target  string   `json:"target,omitempty"`
	Targets []string `json:"targets,omitempty"`
	Rows    int      `json:"rows"`
	// Features are the inputs considered (law modes) or the variables of
	// the causal graph.
	Features []string `json:"features"`
	// BestClaimIndex indexes Claims (-1 when there are none): the claim
	// with the highest score.
	BestClaimIndex int `json:"best_claim_index"`
	// Alternatives index law claims taken from further along the Pareto
	// front rather than the chosen model.
	Alternatives []int `json:"alternatives,omitempty"`
	// NegativeControlsPassed is true when the best claim passed all of its
	// controls.
	NegativeControlsPassed bool `json:"negative_controls_passed"`
	// ClaimsAboveThreshold counts claims scoring at least the spec's
	// evidence threshold.
	ClaimsAboveThreshold int  `json:"claims_above_threshold"`
	ComputeUnits         int  `json:"compute_units"`
	TimedOut             bool `json:"timed_out"`
	// Searches reports, per target of a symbolic run, how long the main
	// search ran and why it stopped.
	Searches   []SearchReport `json:"searches,omitempty"`
	DurationMS int64          `json:"duration_ms"`
	Stages     []StageTiming  `json:"stages"`
	Seed       int64          `json:"seed"`
}

// StageTiming records how one pipeline stage went.
type StageTiming struct {
	Name       Stage       `json:"name"`
	Status     StageStatus `json:"status"`
	DurationMS int64       `json:"duration_ms"`
}

// ArtifactKind is what an artifact holds, as it appears on the wire.
type ArtifactKind string

// Artifact kinds.
const (
	KindPlot   ArtifactKind = "plot"
	KindModel  ArtifactKind = "model"
	KindTable  ArtifactKind = "table"
	KindReport ArtifactKind = "report"
)

// Artifact is a file a run produces (plots, models, graphs). Content is not
// part of results.json: writers store it beside the results.
type Artifact struct {
	Name      string       `json:"name"`
	Kind      ArtifactKind `json:"kind"`
	MediaType string       `json:"media_type"`
	// File is the file name the content is stored under, set by writers.
	File    string `json:"file,omitempty"`
	Content []byte `json:"-"`
	Size    int64  `json:"size_bytes"`
	SHA256  string `json:"sha256"`
}

// NewArtifact fills size and digest from the content.
func NewArtifact(name string, kind ArtifactKind, mediaType string, content []byte) Artifact {
	sum := sha256.Sum256(content)
	return Artifact{Name: name, Kind: kind, MediaType: mediaType, Content: content,
		Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:])}
}

func f64(v float64) *float64 { return &v }
