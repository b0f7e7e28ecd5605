package api

import (
	"encoding/json"
	"time"
)

// The types below hold the fields of the REST API's resources the dashboard shows; the
// API may send more (discovery-api.md, "Versioning": clients ignore unknown fields).

// List is a page of a list endpoint.
type List[T any] struct {
	Data       []T    `json:"data"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor"`
	TotalCount *int   `json:"total_count"`
}

type Governance struct {
	PromotionCeiling        string  `json:"promotion_ceiling"`
	RequireNegativeControls bool    `json:"require_negative_controls"`
	TruthDialThreshold      float64 `json:"truth_dial_threshold"`
}

type Project struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"created_at"`
	CreatedBy   string    `json:"created_by"`
	Settings    struct {
		DefaultMode string     `json:"default_mode"`
		Governance  Governance `json:"governance"`
	} `json:"settings"`
}

type Campaign struct {
	ID          string    `json:"id"`
	ProjectID   string    `json:"project_id"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"created_at"`
	Budget      struct {
		ComputeUnits     int64      `json:"compute_units"`
		ComputeUnitsUsed int64      `json:"compute_units_used"`
		MaxRuns          int32      `json:"max_runs"`
		RunsCompleted    int32      `json:"runs_completed"`
		ExpiresAt        *time.Time `json:"expires_at"`
	} `json:"budget"`
	Governance struct {
		PromotionCeiling        string `json:"promotion_ceiling"`
		RequireNegativeControls bool   `json:"require_negative_controls"`
		AutoPromoteTo           string `json:"auto_promote_to"`
	} `json:"governance"`
}

type Run struct {
	ID         string    `json:"id"`
	ProjectID  string    `json:"project_id"`
	CampaignID string    `json:"campaign_id"`
	Mode       string    `json:"mode"`
	DatasetID  string    `json:"dataset_id"`
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"created_at"`
	CreatedBy  string    `json:"created_by"`
	Message    string    `json:"message"`
	Parameters struct {
		TargetVariables []string `json:"target_variables"`
		Constraints     []string `json:"constraints"`
		MaxComplexity   *int32   `json:"max_complexity"`
		Epochs          *int32   `json:"epochs"`
		CrossValidate   bool     `json:"cross_validate"`
	} `json:"parameters"`
	Governance struct {
		NegativeControls  []string `json:"negative_controls"`
		EvidenceThreshold *float64 `json:"evidence_threshold"`
	} `json:"governance"`
	ComputeUnitsEstimated int64 `json:"compute_units_estimated"`
}

type Stage struct {
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	Progress   *float64 `json:"progress"`
	DurationMS *int64   `json:"duration_ms"`
}

type RunStatus struct {
	ID                  string     `json:"id"`
	Status              string     `json:"status"`
	ComputeUnitsUsed    int64      `json:"compute_units_used"`
	StartedAt           *time.Time `json:"started_at"`
	EstimatedCompletion *time.Time `json:"estimated_completion"`
	Progress            *float64   `json:"progress"`
	Message             string     `json:"message"`
	Pipeline            struct {
		CurrentStage string  `json:"current_stage"`
		Stages       []Stage `json:"stages"`
	} `json:"pipeline"`
}

// Ended tells whether the run will not change any more.
func (s RunStatus) Ended() bool {
	return s.Status == "completed" || s.Status == "failed" || s.Status == "cancelled"
}

type RunResults struct {
	RunID          string `json:"run_id"`
	Status         string `json:"status"`
	ClaimsCount    int32  `json:"claims_count"`
	ArtifactsCount int32  `json:"artifacts_count"`
	Summary        struct {
		BestClaimID            string   `json:"best_claim_id"`
		BestClaimType          string   `json:"best_claim_type"`
		BestClaimScore         *float64 `json:"best_claim_score"`
		NegativeControlsPassed bool     `json:"negative_controls_passed"`
	} `json:"summary"`
	ComputeUnitsUsed int64      `json:"compute_units_used"`
	DurationMS       int64      `json:"duration_ms"`
	CompletedAt      *time.Time `json:"completed_at"`
}

type Artifact struct {
	ID        string    `json:"id"`
	RunID     string    `json:"run_id"`
	Name      string    `json:"name"`
	Kind      string    `json:"kind"`
	MediaType string    `json:"media_type"`
	SizeBytes int64     `json:"size_bytes"`
	CreatedAt time.Time `json:"created_at"`
}

type Control struct {
	Passed bool    `json:"passed"`
	PValue float64 `json:"p_value"`
}

// Evidence holds the measures of every claim type; absent ones stay nil.
type Evidence struct {
	NegativeControlsPassed bool               `json:"negative_controls_passed"`
	BootstrapStability     *float64           `json:"bootstrap_stability"`
	NegativeControls       map[string]Control `json:"negative_controls"`
	RSquared               *float64           `json:"r_squared"`
	HeldOutRSquared        *float64           `json:"held_out_r_squared"`
	CrossValidationScore   *float64           `json:"cross_validation_score"`
	Complexity             *int               `json:"complexity"`
	CausalConfidence       *float64           `json:"causal_confidence"`
	EffectStrength         *float64           `json:"effect_strength"`
	GrangerScore           *float64           `json:"granger_score"`
	InterventionEffectSize *float64           `json:"intervention_effect_size"`
	PValue                 *float64           `json:"p_value"`
	OrientedBy             string             `json:"oriented_by"`
	RelativeVariation      *float64           `json:"relative_variation"`
	Trajectories           *int               `json:"trajectories"`
	// Equations of motion (a dynamics run's dx/dt claims).
	SimulationHorizon  *float64           `json:"simulation_horizon"`
	PersistenceHorizon *float64           `json:"persistence_horizon"`
	SimulationNRMSE    *float64           `json:"simulation_nrmse"`
	TermInclusion      map[string]float64 `json:"term_inclusion"`
}

type Claim struct {
	ID            string   `json:"id"`
	Type          string   `json:"type"`
	Tier          string   `json:"tier"`
	Summary       string   `json:"summary"`
	Score         float64  `json:"score"`
	Evidence      Evidence `json:"evidence"`
	LedgerEntryID string   `json:"ledger_entry_id"`
	RunID         string   `json:"run_id"`
	CampaignID    string   `json:"campaign_id"`
	ProjectID     string   `json:"project_id"`
	Scope         struct {
		Variables            []string `json:"variables"`
		Domain               string   `json:"domain"`
		ConstraintsSatisfied []string `json:"constraints_satisfied"`
	} `json:"scope"`
	CreatedAt           time.Time  `json:"created_at"`
	Expression          string     `json:"expression"`
	Variables           []string   `json:"variables"`
	Cause               string     `json:"cause"`
	Effect              string     `json:"effect"`
	Direction           string     `json:"direction"`
	TemporalScope       string     `json:"temporal_scope"`
	InterventionMarkers []string   `json:"intervention_markers"`
	PreviousTier        string     `json:"previous_tier"`
	PromotedAt          *time.Time `json:"promoted_at"`
	PromotedBy          string     `json:"promoted_by"`
}

type Dataset struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Format       string    `json:"format"`
	Status       string    `json:"status"`
	SizeBytes    int64     `json:"size_bytes"`
	Rows         int64     `json:"rows"`
	Columns      int32     `json:"columns"`
	Variables    []string  `json:"variables"`
	CreatedAt    time.Time `json:"created_at"`
	CreatedBy    string    `json:"created_by"`
	ProfileReady bool      `json:"profile_ready"`
	Message      string    `json:"message"`
	// Units are the SI units declared at upload, by column name (issue 18 item 2).
	Units map[string]string `json:"units"`
}

type Profile struct {
	RowCount    int `json:"row_count"`
	ColumnCount int `json:"column_count"`
	Columns     []struct {
		Name      string     `json:"name"`
		DType     string     `json:"dtype"`
		Mean      *float64   `json:"mean"`
		Std       *float64   `json:"std"`
		NullCount int        `json:"null_count"`
		Min       *float64   `json:"min"`
		Max       *float64   `json:"max"`
		Histogram *Histogram `json:"histogram"`
		TopValues []struct {
			Value string `json:"value"`
			Count int    `json:"count"`
		} `json:"top_values"`
		DistinctValues *int `json:"distinct_values"`
	} `json:"columns"`
	Quality struct {
		Completeness    float64 `json:"completeness"`
		DuplicateRows   int     `json:"duplicate_rows"`
		OutlierFraction float64 `json:"outlier_fraction"`
	} `json:"quality"`
	ProfiledAt *time.Time `json:"profiled_at"`
}

type LedgerEntry struct {
	ID        string          `json:"id"`
	EventType string          `json:"event_type"`
	ClaimID   string          `json:"claim_id"`
	RunID     string          `json:"run_id"`
	Details   json.RawMessage `json:"details"`
	Actor     string          `json:"actor"`
	Timestamp time.Time       `json:"timestamp"`
}

type APIKey struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Scopes     []string   `json:"scopes"`
	ProjectIDs []string   `json:"project_ids"`
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"created_at"`
	CreatedBy  string     `json:"created_by"`
	ExpiresAt  *time.Time `json:"expires_at"`
	GraceUntil *time.Time `json:"grace_until"`
	LastUsedAt *time.Time `json:"last_used_at"`
	Key        string     `json:"key"`
}

// Token is the answer of POST /auth/token.
type Token struct {
	AccessToken  string `json:"access_token"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
	TenantID     string `json:"tenant_id"`
}

type Webhook struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	Events    []string  `json:"events"`
	ProjectID string    `json:"project_id"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
}

type Delivery struct {
	ID             string     `json:"id"`
	EventID        string     `json:"event_id"`
	EventType      string     `json:"event_type"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	LastStatusCode int        `json:"last_status_code"`
	LastError      string     `json:"last_error"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	AttemptLog     []Attempt  `json:"attempt_log"`
}

// Histogram is a dataset column's distribution (ColumnHistogram in the API).
type Histogram struct {
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
	Counts []int   `json:"counts"`
	NegInf int     `json:"neg_inf"`
	PosInf int     `json:"pos_inf"`
}

// Attempt is one logged attempt of a delivery, with the signature headers it was sent with.
type Attempt struct {
	Attempt    int       `json:"attempt"`
	SentAt     time.Time `json:"sent_at"`
	DurationMS int64     `json:"duration_ms"`
	StatusCode int       `json:"status_code"`
	Error      string    `json:"error"`
	Signature  *struct {
		XServiceSignature string `json:"x_service_signature"`
		WebhookID         string `json:"webhook_id"`
		WebhookTimestamp  string `json:"webhook_timestamp"`
		WebhookSignature  string `json:"webhook_signature"`
	} `json:"signature"`
}

type OAuthClient struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	RedirectURIs []string  `json:"redirect_uris"`
	Scopes       []string  `json:"scopes"`
	Public       bool      `json:"public"`
	CreatedAt    time.Time `json:"created_at"`
}

// InclusionProof is GET .../ledger/{entry_id}/proof: RFC 6962 hashes, standard base64.
type InclusionProof struct {
	EntryID    string   `json:"entry_id"`
	EntryHash  string   `json:"entry_hash"`
	LeafIndex  int64    `json:"leaf_index"`
	TreeSize   int64    `json:"tree_size"`
	RootHash   string   `json:"root_hash"`
	Hashes     []string `json:"hashes"`
	Checkpoint string   `json:"checkpoint"`
}
