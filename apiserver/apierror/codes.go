package apierror

import "net/http"

// Error codes. The governance codes are the contract's; the others are the facade's
// decisions, each documented at /v1/docs/errors/<code>.
const (
	CodeValidation          = "validation_error"
	CodeMalformedRequest    = "malformed_request"
	CodeInvalidCursor       = "invalid_cursor"
	CodeUnauthenticated     = "unauthenticated"
	CodeInsufficientScope   = "insufficient_scope"
	CodeForbidden           = "forbidden"
	CodeNotFound            = "not_found"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodeConflict            = "conflict"
	CodePreconditionFailed  = "precondition_failed"
	CodeDuplicateRun        = "duplicate_run"
	CodeIdempotencyReused   = "idempotency_key_reused"
	CodeIdempotencyInFlight = "idempotency_key_in_flight"
	CodeRunNotCompleted     = "run_not_completed"
	CodeRunFinished         = "run_already_finished"
	CodeDatasetNotReady     = "dataset_not_ready"
	CodeRequestTimeout      = "request_timeout"
	CodePayloadTooLarge     = "payload_too_large"
	CodeUnsupportedMedia    = "unsupported_media_type"
	CodeFormatUnsupported   = "dataset_format_unsupported"
	CodeDatasetUnreadable   = "dataset_unreadable"
	CodeDatasetTooWide      = "dataset_too_wide"
	CodeConstraintInvalid   = "constraint_invalid"
	CodeParameterInvalid    = "parameter_invalid"
	CodeWebhookURL          = "webhook_url_not_allowed"
	CodeRateLimited         = "rate_limited"
	CodeInternal            = "internal_error"
	CodeNotImplemented      = "not_implemented"
	CodeUnavailable         = "service_unavailable"

	CodeGovernanceViolation = "governance_policy_violation"
	CodeThresholdNotMet     = "truth_dial_threshold_not_met"
	CodeControlsRequired    = "negative_controls_required"
	CodeBudgetExhausted     = "budget_exhausted"
	CodeLedgerIntegrity     = "ledger_integrity_error"
)

// Doc describes a code for its documentation page.
type Doc struct {
	Code   string
	Status int
	Title  string
	Text   string
}

// Catalog lists every code the facade answers with.
var Catalog = []Doc{
	{CodeValidation, 400, "Validation error", "The request is malformed or a parameter is invalid. details.fields lists each problem as {field, message}; field is a path such as body.name or query.limit."},
	{CodeMalformedRequest, 400, "Malformed request", "The body could not be parsed (invalid JSON, truncated multipart, nesting too deep)."},
	{CodeInvalidCursor, 400, "Invalid cursor", "The cursor was not issued by this service, was altered, or belongs to a different sort, order or filter. Start again without a cursor."},
	{CodeUnauthenticated, 401, "Authentication required", "The Authorization header is missing, malformed, or carries a credential that is unknown, revoked or expired. details.reason says which. Send Authorization: Bearer <API key or session token>."},
	{CodeInsufficientScope, 403, "Insufficient scope", "The credential is valid but lacks the scope the operation needs; details.required_scope names it."},
	{CodeForbidden, 403, "Forbidden", "The operation is not allowed for this credential."},
	{CodeNotFound, 404, "Not found", "The resource does not exist, belongs to another tenant, or lies outside the projects the credential may reach. Paths must start with /v1."},
	{CodeMethodNotAllowed, 405, "Method not allowed", "The path exists but not with this method; details.allowed and the Allow header list the methods it accepts."},
	{CodeConflict, 409, "Conflict", "The resource was modified concurrently or already exists. Read it again and retry."},
	{CodePreconditionFailed, 412, "Precondition failed", "The If-Match header names an entity tag the resource no longer has: it was changed since you read it. GET it again, reapply your change and send the new ETag. details.etag is the current one when known."},
	{CodeDuplicateRun, 409, "Duplicate run", "A run with the same mode, dataset and parameters is already queued or running in this campaign; details.run_id names it."},
	{CodeIdempotencyReused, 409, "Idempotency key reused", "The Idempotency-Key was already used with a different request body. Use a new key for a new request."},
	{CodeIdempotencyInFlight, 409, "Idempotency key in flight", "A request with the same Idempotency-Key is still being processed. Retry after it finishes."},
	{CodeRunNotCompleted, 409, "Run not completed", "Results exist only once the run has completed; details.status gives its current status."},
	{CodeRunFinished, 409, "Run already finished", "The run has already finished and cannot be cancelled."},
	{CodeDatasetNotReady, 409, "Dataset not ready", "The dataset is still being profiled (or profiling failed). details.status gives its status; poll the dataset until status is ready."},
	{CodeRequestTimeout, 408, "Request timeout", "The request body stopped arriving before it was complete (no bytes for 30 seconds, or the whole body took longer than its limit). The connection is closed; send the request again without pauses."},
	{CodePayloadTooLarge, 413, "Payload too large", "The request body exceeds the limit; details.limit_bytes gives it."},
	{CodeUnsupportedMedia, 415, "Unsupported media type", "The Content-Type is not accepted by this operation: JSON operations take application/json, dataset upload takes multipart/form-data."},
	{CodeFormatUnsupported, 422, "Dataset format unsupported", "The declared dataset format is not supported, or the file does not look like it. Supported formats: parquet, csv."},
	{CodeDatasetUnreadable, 422, "Dataset unreadable", "The uploaded file could not be read in its declared format; details.reason explains why."},
	{CodeDatasetTooWide, 422, "Dataset too wide", "The file has more columns than a dataset may have; details.columns gives its count and details.limit the limit (4096). Split it into narrower files."},
	{CodeConstraintInvalid, 422, "Constraint invalid", "A run constraint could not be parsed or does not fit the dataset; details.field and details.reason explain."},
	{CodeParameterInvalid, 422, "Parameter invalid", "A run parameter does not fit the mode or the dataset; details.field names it."},
	{CodeWebhookURL, 422, "Webhook URL not allowed", "Webhook URLs must be https (http only where the deployment allows loopback receivers), without user or password, with a valid host name or a public IP address; a literal private, loopback, link-local or metadata address is refused. Host names are resolved at each delivery, and a delivery to such an address fails with the reason."},
	{CodeRateLimited, 429, "Rate limited", "Too many requests in the current window. Wait for Retry-After seconds; X-RateLimit-Reset gives the Unix time the window resets."},
	{CodeInternal, 500, "Internal error", "The service failed unexpectedly. The request id identifies the failure in the service logs."},
	{CodeNotImplemented, 501, "Not implemented", "This part of the service is not available in this deployment yet."},
	{CodeUnavailable, 503, "Service unavailable", "The service is starting, in maintenance or over capacity. Retry later."},
	{"invalid_request", 400, "OAuth: invalid request", "The OAuth request is missing a parameter, repeats one, or is otherwise malformed; details.error_description says what. A redirect_uri must match a registered one exactly."},
	{"invalid_client", 401, "OAuth: invalid client", "The client is unknown or its authentication failed."},
	{"invalid_grant", 400, "OAuth: invalid grant", "The authorization code or refresh token is invalid, expired, already used, or was issued to another client or redirect URI. A refresh token used twice revokes every token of its grant."},
	{"unauthorized_client", 400, "OAuth: unauthorized client", "The client may not use this grant type."},
	{"unsupported_grant_type", 400, "OAuth: unsupported grant type", "grant_type must be authorization_code or refresh_token."},
	{"invalid_scope", 400, "OAuth: invalid scope", "A requested scope is unknown or not allowed for the client."},
	{"unsupported_response_type", 400, "OAuth: unsupported response type", "response_type must be code."},
	{"access_denied", 403, "OAuth: access denied", "The user or the server denied the request."},
	{"server_error", 500, "OAuth: server error", "The authorization server failed unexpectedly."},
	{"request_unauthorized", 401, "OAuth: request unauthorized", "The request could not be authorized."},
	{CodeGovernanceViolation, 403, "Governance policy violation", "The operation would exceed the governance ceiling (details.constraint promotion_ceiling_exceeded). details carries claim_id, requested_tier, policy_ceiling and truth_dial_score."},
	{CodeThresholdNotMet, 403, "Truth Dial threshold not met", "The claim's score is below the project's truth_dial_threshold (details.constraint truth_dial_threshold)."},
	{CodeControlsRequired, 403, "Negative controls required", "Promotion requires passing negative controls first (details.constraint negative_controls)."},
	{CodeBudgetExhausted, 403, "Budget exhausted", "The campaign budget does not allow the run; details.constraint is compute_units, max_runs or expires_at."},
	{CodeLedgerIntegrity, 500, "Ledger integrity error", "The Evidence Ledger's hash chain or Merkle tree did not verify."},
}

// Lookup returns the documentation of code.
func Lookup(code string) (Doc, bool) {
	for _, d := range Catalog {
		if d.Code == code {
			return d, true
		}
	}
	return Doc{}, false
}

// Constructors for the common cases.

func BadRequest(format string, args ...any) *Error {
	return New(http.StatusBadRequest, CodeValidation, format, args...)
}

// Invalid is a validation error about one field.
func Invalid(field, message string) *Error {
	return New(http.StatusBadRequest, CodeValidation, "%s: %s", field, message).
		With("fields", []Field{{Field: field, Message: message}})
}

func NotFound(kind, id string) *Error {
	return New(http.StatusNotFound, CodeNotFound, "%s %s not found", kind, id).With("resource", kind).With("id", id)
}

func Conflict(format string, args ...any) *Error {
	return New(http.StatusConflict, CodeConflict, format, args...)
}

func Internal(cause error) *Error {
	return New(http.StatusInternalServerError, CodeInternal, "internal error").WithCause(cause)
}

func NotImplemented(what string) *Error {
	return New(http.StatusNotImplemented, CodeNotImplemented, "%s is not implemented in this deployment yet", what)
}

func Unauthenticated(reason, message string) *Error {
	return New(http.StatusUnauthorized, CodeUnauthenticated, "%s", message).
		With("reason", reason).
		WithHeader("WWW-Authenticate", `Bearer realm="disco"`)
}

func InsufficientScope(scope string) *Error {
	return New(http.StatusForbidden, CodeInsufficientScope, "this operation needs the scope %s", scope).
		With("required_scope", scope).
		WithHeader("WWW-Authenticate", `Bearer realm="disco", error="insufficient_scope", scope="`+scope+`"`)
}
