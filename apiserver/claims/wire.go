package claims

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
)

// Claim pages are written from each claim's encoded form instead of through huma's
// reflection encoder: at 100 claims a page, encoding was half of a list request's CPU and
// most of its garbage, and the garbage (GC assists at a 100,000-claim heap) set the tail
// latency. With the claim index, each cached claim is encoded once (listindex.Wire), for
// pages and for single gets.

// claimWire is a claim's response object exactly as huma's JSON format writes a Claim
// (encoding/json, HTML characters not escaped), without the trailing newline.
func claimWire(c *discov1.Claim) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(Of(c)); err != nil {
		// A Claim holds strings, numbers and stored JSON: this cannot fail unless stored
		// evidence is not JSON, which the CRD schema rules out.
		panic("apiserver: encoding a claim: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Evidence is a claim's evidence object as stored. It is written out as the stored bytes:
// decoding and re-encoding the evidence of every claim of a 100-item page was a large part
// of a list request's cost. Its OpenAPI schema is typed per claim type (LawEvidence,
// CausalEvidence, ConservationEvidence); those structs declare the shape only.
type Evidence json.RawMessage

// MarshalJSON writes the stored object.
func (e Evidence) MarshalJSON() ([]byte, error) {
	if len(e) == 0 {
		return []byte("{}"), nil
	}
	return e, nil
}

// UnmarshalJSON keeps the object's bytes (for clients of this package's types).
func (e *Evidence) UnmarshalJSON(b []byte) error {
	*e = append((*e)[:0], b...)
	return nil
}

// Schema describes evidence as one of the per-type evidence objects. It is anyOf, not
// oneOf: an object holding only the fields every type shares is valid evidence of any
// type, and the type itself is the claim's, beside the evidence (OpenAPI 3.1, JSON Schema
// 2020-12 section 10.2.1.2).
func (Evidence) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{
		Description: "The measurements behind the claim, shaped by the claim's type: LawEvidence for a law " +
			"claim, CausalEvidence for a causal one, ConservationEvidence for a conservation one. " +
			"negative_controls_passed is always present; every other measure is optional, since claims " +
			"stored by older engines may lack it.",
		AnyOf: []*huma.Schema{
			r.Schema(reflect.TypeFor[LawEvidence](), true, ""),
			r.Schema(reflect.TypeFor[CausalEvidence](), true, ""),
			r.Schema(reflect.TypeFor[ConservationEvidence](), true, ""),
		},
	}
}

// The evidence structs below are the wire schema of engine.Evidence (engine/result.go, the
// source of the field set), split by claim type. TestEvidenceFieldsMatchEngine fails when
// the two disagree. Fields are optional but negative_controls_passed: evidence stored by
// older writers may lack any measure, and evidenceOf adds negative_controls_passed.

// EvidenceCommon holds the evidence fields of every claim type.
type EvidenceCommon struct {
	NegativeControlsPassed bool                             `json:"negative_controls_passed" required:"true" doc:"Whether the claim passed all of its negative controls."`
	BootstrapStability     *float64                         `json:"bootstrap_stability,omitempty" doc:"Fraction of bootstrap resamples that reproduce the claim."`
	NegativeControls       map[string]NegativeControlResult `json:"negative_controls,omitempty" doc:"Each negative control run, by control name."`
}

// NegativeControlResult is one negative control's outcome (engine/controls.Result).
type NegativeControlResult struct {
	Passed bool    `json:"passed" required:"true"`
	PValue float64 `json:"p_value" required:"true" doc:"Permutation p-value of the control."`
}

// LawEvidence is the evidence of a law claim.
type LawEvidence struct {
	_                    struct{} `additionalProperties:"false"`
	RSquared             *float64 `json:"r_squared,omitempty" doc:"R² of the law over all rows."`
	HeldOutRSquared      *float64 `json:"held_out_r_squared,omitempty" doc:"R² over every row the search did not train on (the held-out rows)."`
	CrossValidationScore *float64 `json:"cross_validation_score,omitempty" doc:"Mean R² over the cross-validation folds (the held-out R² when cross_validate is off)."`
	Complexity           *int     `json:"complexity,omitempty" doc:"Size of the expression tree."`

	// Present when the run declared the units of the target and of every variable the law
	// uses (units: constraint).
	DimensionallyConsistent *bool `json:"dimensionally_consistent,omitempty" doc:"Whether the law is dimensionally consistent: some choice of units for its fitted constants makes every sum add terms of one dimension, function arguments dimensionless and the whole the target's dimension."`

	// Equations of motion (a dynamics run's dx/dt claims).
	SimulationHorizon  *float64           `json:"simulation_horizon,omitempty" doc:"Median time the system, simulated from held-out initial conditions, follows the held-out trajectories."`
	PersistenceHorizon *float64           `json:"persistence_horizon,omitempty" doc:"The same horizon for the persistence forecast x(t) = x(t0)."`
	SimulationNRMSE    *float64           `json:"simulation_nrmse,omitempty" doc:"Median normalised RMS error of the held-out simulations."`
	TermInclusion      map[string]float64 `json:"term_inclusion,omitempty" doc:"Share of the ensemble's refits that select each term."`
	EvidenceCommon
}

// CausalEvidence is the evidence of a causal claim: causal_confidence with effect_strength
// for a contemporaneous edge, or granger_score, intervention_effect_size and p_value for a
// lagged one.
type CausalEvidence struct {
	_                      struct{} `additionalProperties:"false"`
	CausalConfidence       *float64 `json:"causal_confidence,omitempty" doc:"Confidence in the edge."`
	EffectStrength         *float64 `json:"effect_strength,omitempty" doc:"Standardised linear effect of a contemporaneous edge."`
	GrangerScore           *float64 `json:"granger_score,omitempty" doc:"Granger F statistic of a lagged edge."`
	InterventionEffectSize *float64 `json:"intervention_effect_size,omitempty" doc:"Standardised lagged effect."`
	PValue                 *float64 `json:"p_value,omitempty" doc:"p-value of the Granger test."`
	OrientedBy             string   `json:"oriented_by,omitempty" doc:"What oriented the edge."`
	EvidenceCommon
}

// ConservationEvidence is the evidence of a conservation claim.
type ConservationEvidence struct {
	_                 struct{} `additionalProperties:"false"`
	RelativeVariation *float64 `json:"relative_variation,omitempty" doc:"Variation of the quantity along trajectories relative to its scale, over every row the search did not train on."`
	Trajectories      *int     `json:"trajectories,omitempty" doc:"Number of trajectories the quantity was checked on."`
	EvidenceCommon
}

// rawJSON is an operation output written as given. The operation's 200 schema is declared
// by hand (see rawJSONResponse), since huma cannot infer it from a function body.
type rawJSON struct {
	Body func(huma.Context)
}

// jsonOutput writes one encoded object and a newline, as huma's JSON format does.
func jsonOutput(object []byte) *rawJSON {
	return &rawJSON{Body: func(ctx huma.Context) { writeRawJSON(ctx, object, []byte("\n")) }}
}

// writeRawJSON answers 200 with a JSON body made of parts.
func writeRawJSON(ctx huma.Context, parts ...[]byte) {
	ctx.SetHeader("Content-Type", "application/json")
	ctx.SetStatus(http.StatusOK)
	w := ctx.BodyWriter()
	for _, p := range parts {
		_, _ = w.Write(p)
	}
}

var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// claimPageOutput writes a page of claims as the contract's list object, the same bytes
// huma would write for resource.PageOutput(page, Of).
func claimPageOutput(page pagination.Page[*discov1.Claim], wire func(*discov1.Claim) []byte) *rawJSON {
	return &rawJSON{Body: func(ctx huma.Context) {
		buf := pageBuffers.Get().(*bytes.Buffer)
		buf.Reset()
		buf.WriteString(`{"object":"list","data":[`)
		for i, c := range page.Items {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(wire(c))
		}
		buf.WriteString(`],"has_more":`)
		buf.WriteString(strconv.FormatBool(page.HasMore))
		if page.NextCursor != "" {
			buf.WriteString(`,"next_cursor":`)
			cursor, _ := json.Marshal(page.NextCursor)
			buf.Write(cursor)
		}
		buf.WriteString(`,"total_count":`)
		buf.WriteString(strconv.Itoa(page.Total))
		buf.WriteString("}\n")
		writeRawJSON(ctx, buf.Bytes())
		if buf.Cap() <= 1<<20 {
			pageBuffers.Put(buf)
		}
	}}
}

// rawJSONResponse declares an operation's 200 response as the schema of body's type, as
// huma would have for a typed output.
func rawJSONResponse(api huma.API, body any) map[string]*huma.Response {
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(body), true, "")
	return map[string]*huma.Response{strconv.Itoa(http.StatusOK): {
		Description: http.StatusText(http.StatusOK),
		Content:     map[string]*huma.MediaType{"application/json": {Schema: schema}},
	}}
}
