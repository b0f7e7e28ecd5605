package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/discolab/disco/apiserver/runs"
)

// Tool inputs. The run submission reuses the facade's request types (RunParameters,
// RunGovernance); the others mirror the facade's path and query parameters, with the
// same validation tags.

type pageInput struct {
	Limit  int    `json:"limit,omitempty" minimum:"1" maximum:"100" jsonschema:"Items per page; default 20, maximum 100."`
	Cursor string `json:"cursor,omitempty" maxLength:"4096" jsonschema:"The next_cursor of the previous page."`
	Order  string `json:"order,omitempty" enum:"asc,desc" jsonschema:"Sort order; default desc (newest first) for created_at, asc otherwise."`
}

func (p pageInput) query(q url.Values) url.Values {
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	set(q, "cursor", p.Cursor)
	set(q, "order", p.Order)
	return q
}

type projectRef struct {
	ProjectID string `json:"project_id" maxLength:"64" jsonschema:"Project id (proj_ prefix)."`
}

type campaignRef struct {
	projectRef
	CampaignID string `json:"campaign_id" maxLength:"64" jsonschema:"Campaign id (camp_ prefix)."`
}

type runRef struct {
	campaignRef
	RunID string `json:"run_id" maxLength:"64" jsonschema:"Run id (run_ prefix)."`
}

type listProjectsInput struct {
	pageInput
	Sort   string `json:"sort,omitempty" enum:"created_at,updated_at,name" jsonschema:"Field to sort by; default created_at."`
	Status string `json:"status,omitempty" enum:"active,archived" jsonschema:"Only projects with this status."`
}

type listCampaignsInput struct {
	projectRef
	pageInput
	Sort   string `json:"sort,omitempty" enum:"created_at,name" jsonschema:"Field to sort by; default created_at."`
	Status string `json:"status,omitempty" enum:"active,exhausted,expired,archived" jsonschema:"Only campaigns with this status."`
}

type listDatasetsInput struct {
	projectRef
	pageInput
	Sort   string `json:"sort,omitempty" enum:"created_at,name,size_bytes" jsonschema:"Field to sort by; default created_at."`
	Status string `json:"status,omitempty" enum:"profiling,ready,failed" jsonschema:"Only datasets with this status."`
	Format string `json:"format,omitempty" enum:"parquet,csv" jsonschema:"Only datasets of this format."`
}

type datasetRef struct {
	projectRef
	DatasetID string `json:"dataset_id" maxLength:"64" jsonschema:"Dataset id (ds_ prefix)."`
}

type listRunsInput struct {
	campaignRef
	pageInput
	Sort      string `json:"sort,omitempty" enum:"created_at,compute_units_estimated" jsonschema:"Field to sort by; default created_at."`
	Status    string `json:"status,omitempty" enum:"queued,running,completed,failed,cancelled" jsonschema:"Only runs with this status."`
	Mode      string `json:"mode,omitempty" enum:"symbolic,neural,neuro_symbolic,causal" jsonschema:"Only runs of this mode."`
	DatasetID string `json:"dataset_id,omitempty" maxLength:"64" jsonschema:"Only runs over this dataset."`
}

// submitRunInput is the facade's run submission body plus the campaign it goes to.
type submitRunInput struct {
	campaignRef
	Mode       string              `json:"mode,omitempty" enum:"symbolic,neural,neuro_symbolic,causal" jsonschema:"Discovery mode; default: the project's settings.default_mode."`
	DatasetID  string              `json:"dataset_id" maxLength:"64" jsonschema:"The dataset to run on (ds_ prefix); it must be ready."`
	Parameters *runs.RunParameters `json:"parameters,omitempty" jsonschema:"Run parameters (target_variables, constraints, max_complexity, epochs, cross_validate, ...)."`
	Governance *runs.RunGovernance `json:"governance,omitempty" jsonschema:"negative_controls (shuffled_target, noise_feature, time_shift, placebo_cause) and evidence_threshold."`
}

type submitRunBody struct {
	Mode       string              `json:"mode,omitempty"`
	DatasetID  string              `json:"dataset_id"`
	Parameters *runs.RunParameters `json:"parameters,omitempty"`
	Governance *runs.RunGovernance `json:"governance,omitempty"`
}

type listClaimsInput struct {
	projectRef
	pageInput
	Sort       string `json:"sort,omitempty" enum:"created_at,score,tier,type" jsonschema:"Field to sort by; default created_at."`
	RunID      string `json:"run_id,omitempty" maxLength:"64" jsonschema:"Only claims of this run."`
	CampaignID string `json:"campaign_id,omitempty" maxLength:"64" jsonschema:"Only claims of this campaign."`
	Type       string `json:"type,omitempty" enum:"law,causal,conservation" jsonschema:"Only claims of this type."`
	Tier       string `json:"tier,omitempty" enum:"explore,validate,publish" jsonschema:"Only claims in this tier."`
}

// uploadDatasetInput is an upload as an agent sends it: the CSV text itself, with the
// metadata part's fields. The facade checks them, units included (issue 18 item 2).
type uploadDatasetInput struct {
	projectRef
	Name      string            `json:"name" minLength:"1" maxLength:"200" jsonschema:"The dataset's name."`
	CSV       string            `json:"csv" minLength:"1" maxLength:"4194304" jsonschema:"The table as CSV text (at most 4 MiB): a header line naming the columns, then one line per row."`
	Variables []string          `json:"variables,omitempty" maxItems:"4096" jsonschema:"Variables to declare (optional; the profile lists the real columns)."`
	Units     map[string]string `json:"units,omitempty" jsonschema:"SI units of columns by name, e.g. {\"F\": \"kg*m/s^2\", \"m\": \"kg\", \"t\": \"s\"}: kg m s A K mol cd N J W Pa C V Hz ohm T F Wb H S rad sr with * / and ^ powers; 1 is dimensionless; no prefixes (km). Runs on the dataset use them as a units: constraint unless they give their own; law claims then say whether they are dimensionally_consistent."`
}

// body is the upload's multipart/form-data body: the metadata part, then the file. Writes
// to a bytes.Buffer do not fail, so their errors are not checked.
func (in uploadDatasetInput) body() rawBody {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	meta, _ := json.Marshal(struct {
		Name      string            `json:"name"`
		Format    string            `json:"format"`
		Variables []string          `json:"variables,omitempty"`
		Units     map[string]string `json:"units,omitempty"`
	}{in.Name, "csv", in.Variables, in.Units})
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="metadata"`)
	h.Set("Content-Type", "application/json")
	part, _ := mw.CreatePart(h)
	_, _ = part.Write(meta)
	part, _ = mw.CreateFormFile("file", "data.csv")
	_, _ = io.WriteString(part, in.CSV)
	_ = mw.Close()
	return rawBody{contentType: mw.FormDataContentType(), data: buf.Bytes()}
}

type claimRef struct {
	projectRef
	ClaimID string `json:"claim_id" maxLength:"64" jsonschema:"Claim id (clm_ prefix)."`
}

// tierChangeInput is the facade's promote/demote body plus the claim it applies to.
type tierChangeInput struct {
	claimRef
	TargetTier string `json:"target_tier" enum:"explore,validate,publish" jsonschema:"The tier to move the claim to."`
	Rationale  string `json:"rationale,omitempty" maxLength:"4000" jsonschema:"Why; recorded in the Evidence Ledger."`
}

type tierChangeBody struct {
	TargetTier string `json:"target_tier"`
	Rationale  string `json:"rationale,omitempty"`
}

type listLedgerInput struct {
	projectRef
	pageInput
	Sort    string `json:"sort,omitempty" enum:"timestamp,tree_index" jsonschema:"Both give ledger order; default newest first."`
	ClaimID string `json:"claim_id,omitempty" maxLength:"64" jsonschema:"Only entries about this claim."`
}

type ledgerEntryRef struct {
	projectRef
	EntryID string `json:"entry_id" maxLength:"64" jsonschema:"Ledger entry id (led_ prefix)."`
}

func set(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

func seg(s string) string { return url.PathEscape(s) }

func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

func (p projectRef) path() string  { return "/projects/" + seg(p.ProjectID) }
func (c campaignRef) path() string { return c.projectRef.path() + "/campaigns/" + seg(c.CampaignID) }
func (r runRef) path() string      { return r.campaignRef.path() + "/runs/" + seg(r.RunID) }
func (d datasetRef) path() string  { return d.projectRef.path() + "/datasets/" + seg(d.DatasetID) }
func (c claimRef) path() string    { return c.projectRef.path() + "/claims/" + seg(c.ClaimID) }

// request is one REST call a tool makes.
type request struct {
	method, path string
	body         any
}

func get(path string) request { return request{method: http.MethodGet, path: path} }

// tool registers a tool whose input In maps to one REST request.
func tool[In any](t *tools, name, description string, readOnly bool, build func(In) request) {
	ann := &mcpsdk.ToolAnnotations{ReadOnlyHint: readOnly, OpenWorldHint: new(bool)}
	if !readOnly {
		ann.DestructiveHint = new(bool)
	}
	mcpsdk.AddTool(t.server, &mcpsdk.Tool{
		Name: name, Description: description, InputSchema: inputSchema[In](), Annotations: ann,
	}, func(ctx context.Context, req *mcpsdk.CallToolRequest, in In) (*mcpsdk.CallToolResult, any, error) {
		r := build(in)
		return t.call(ctx, req, r), nil, nil
	})
}

// toolNames lists the tools NewServer registers, in order.
var toolNames = []string{
	"list_projects", "get_project", "list_campaigns", "get_campaign", "list_datasets", "upload_dataset", "get_dataset",
	"get_dataset_profile", "list_runs", "get_run", "submit_run", "get_run_status", "get_run_results",
	"cancel_run", "list_claims", "get_claim", "promote_claim", "demote_claim", "list_ledger",
	"get_ledger_entry", "verify_ledger",
}

func (t *tools) register() {
	tool(t, "list_projects", "List the projects the credential can reach (one page; pass next_cursor as cursor for the next).", true,
		func(in listProjectsInput) request {
			q := in.query(url.Values{})
			set(q, "sort", in.Sort)
			set(q, "status", in.Status)
			return get(withQuery("/projects", q))
		})
	tool(t, "get_project", "Get a project, with its settings and governance (promotion ceiling, Truth Dial threshold, negative controls).", true,
		func(in projectRef) request { return get(in.path()) })
	tool(t, "list_campaigns", "List a project's campaigns (one page).", true,
		func(in listCampaignsInput) request {
			q := in.query(url.Values{})
			set(q, "sort", in.Sort)
			set(q, "status", in.Status)
			return get(withQuery(in.path()+"/campaigns", q))
		})
	tool(t, "get_campaign", "Get a campaign, with its budget and governance.", true,
		func(in campaignRef) request { return get(in.path()) })
	tool(t, "list_datasets", "List a project's datasets (one page).", true,
		func(in listDatasetsInput) request {
			q := in.query(url.Values{})
			set(q, "sort", in.Sort)
			set(q, "status", in.Status)
			set(q, "format", in.Format)
			return get(withQuery(in.path()+"/datasets", q))
		})
	tool(t, "upload_dataset", "Upload a CSV table as a dataset of a project, optionally with the SI units of its columns. "+
		"The dataset is profiled asynchronously: poll get_dataset until its status is ready.", false,
		func(in uploadDatasetInput) request {
			return request{method: http.MethodPost, path: in.path() + "/datasets", body: in.body()}
		})
	tool(t, "get_dataset", "Get a dataset (status, rows, variables, units, profile_ready).", true,
		func(in datasetRef) request { return get(in.path()) })
	tool(t, "get_dataset_profile", "Get a dataset's profile: per-column statistics and data quality.", true,
		func(in datasetRef) request { return get(in.path() + "/profile") })
	tool(t, "list_runs", "List a campaign's runs (one page).", true,
		func(in listRunsInput) request {
			q := in.query(url.Values{})
			set(q, "sort", in.Sort)
			set(q, "status", in.Status)
			set(q, "mode", in.Mode)
			set(q, "dataset_id", in.DatasetID)
			return get(withQuery(in.path()+"/runs", q))
		})
	tool(t, "get_run", "Get a run.", true,
		func(in runRef) request { return get(in.path()) })
	tool(t, "submit_run", "Submit a discovery run on a ready dataset in a campaign. Runs are asynchronous: "+
		"poll get_run_status until completed, then read get_run_results and list_claims (run_id filter).", false,
		func(in submitRunInput) request {
			return request{method: http.MethodPost, path: in.path() + "/runs", body: submitRunBody{
				Mode: in.Mode, DatasetID: in.DatasetID, Parameters: in.Parameters, Governance: in.Governance,
			}}
		})
	tool(t, "get_run_status", "Get a run's status and pipeline progress.", true,
		func(in runRef) request { return get(in.path() + "/status") })
	tool(t, "get_run_results", "Get a completed run's results: claims count and the best claim (run_not_completed until it has completed).", true,
		func(in runRef) request { return get(in.path() + "/results") })
	tool(t, "cancel_run", "Ask a queued or running run to stop.", false,
		func(in runRef) request { return request{method: http.MethodPost, path: in.path() + "/cancel"} })
	tool(t, "list_claims", "List a project's claims (one page), optionally only those of a run, campaign, type or tier.", true,
		func(in listClaimsInput) request {
			q := in.query(url.Values{})
			set(q, "sort", in.Sort)
			set(q, "run_id", in.RunID)
			set(q, "campaign_id", in.CampaignID)
			set(q, "type", in.Type)
			set(q, "tier", in.Tier)
			return get(withQuery(in.path()+"/claims", q))
		})
	tool(t, "get_claim", "Get a claim: type, tier, score, scope, evidence and its ledger entry.", true,
		func(in claimRef) request { return get(in.path()) })
	tool(t, "promote_claim", "Promote a claim to a higher Truth Dial tier. Checked against the promotion ceiling, "+
		"the Truth Dial threshold and negative controls; a refusal names the constraint. Recorded in the Evidence Ledger.", false,
		func(in tierChangeInput) request {
			return request{method: http.MethodPost, path: in.path() + "/promote", body: tierChangeBody{TargetTier: in.TargetTier, Rationale: in.Rationale}}
		})
	tool(t, "demote_claim", "Demote a claim to a lower tier, with a rationale. Recorded in the Evidence Ledger.", false,
		func(in tierChangeInput) request {
			return request{method: http.MethodPost, path: in.path() + "/demote", body: tierChangeBody{TargetTier: in.TargetTier, Rationale: in.Rationale}}
		})
	tool(t, "list_ledger", "List a project's Evidence Ledger entries (one page), optionally only those about a claim.", true,
		func(in listLedgerInput) request {
			q := in.query(url.Values{})
			set(q, "sort", in.Sort)
			set(q, "claim_id", in.ClaimID)
			return get(withQuery(in.path()+"/ledger", q))
		})
	tool(t, "get_ledger_entry", "Get one Evidence Ledger entry.", true,
		func(in ledgerEntryRef) request { return get(in.path() + "/ledger/" + seg(in.EntryID)) })
	tool(t, "verify_ledger", "Verify a project's Evidence Ledger: recompute every hash, chain link and the Merkle tree.", true,
		func(in projectRef) request { return get(in.path() + "/ledger/verify") })
}
