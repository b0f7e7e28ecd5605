package v1alpha1

// Condition types, condition reasons and event reasons: every one a user sees in
// `kubectl describe` or `kubectl wait --for=condition=...`, in one place, after kueue's
// apis/kueue/v1beta1 and the Kubernetes API conventions ("Typical status properties":
// a condition's type is a CamelCase adjective or past participle, its reason a CamelCase
// one-word machine-readable cause). The values are part of the API: tools match on them, so
// a value never changes once released.

// Condition types shared by the kinds.
const (
	// ConditionReady is True when the object is usable: a tenant's namespace exists, a
	// project's tenant exists, a dataset is profiled, a run completed. Every kind has it.
	ConditionReady = "Ready"
)

// Run condition types.
const (
	// RunConditionAccepted is True once the controller stored the run as queued.
	RunConditionAccepted = "Accepted"
	// RunConditionAdmitted is True once the engine started the run; while False, its
	// reason says what the run waits for (ReasonWaitingForCapacity, ReasonProjectNotFound,
	// ...), or why it was refused (ReasonBudgetExhausted).
	RunConditionAdmitted = "Admitted"
	// RunConditionFinished is True once the run reached a final phase; its reason says how.
	RunConditionFinished = "Finished"
	// RunConditionSucceeded and RunConditionFailed tell success from failure to tools:
	// `kubectl wait --for=condition=Succeeded` and Argo CD or Flux health checks. Both are
	// False while the run is queued or running; a finished run has exactly one True.
	RunConditionSucceeded = "Succeeded"
	RunConditionFailed    = "Failed"
	// RunConditionResultsReady is True when the engine finished and results.json is in the
	// blob store; the controller then turns it into claims and completes the run.
	RunConditionResultsReady = "ResultsReady"
	// RunConditionClaimsCreated is True when every claim of results.json exists and is
	// ledgered.
	RunConditionClaimsCreated = "ClaimsCreated"
	// RunConditionEngineFailed is True when an isolated engine (a Job's pod) failed the
	// run's discovery; its message says why, and the controller finishes the run.
	RunConditionEngineFailed = "EngineFailed"
	// RunConditionAnnounced is True once the run's final state was published to webhooks.
	RunConditionAnnounced = "Announced"
)

// Run condition reasons.
const (
	// ReasonSubmitted (Accepted=True): the run was accepted.
	ReasonSubmitted = "Submitted"
	// ReasonQueued (Succeeded, Failed, Ready = False): the run has not finished.
	ReasonQueued = "Queued"
	// ReasonWaitingForCapacity (Admitted=False): the tenant's concurrency limit is reached,
	// earlier runs wait first, or the executor has the run but no worker started it yet; or
	// a ResourceQuota has no room for its Job or pod, or Kueue has not admitted its Job yet
	// (the message names the quota or the LocalQueue).
	ReasonWaitingForCapacity = "WaitingForCapacity"
	// ReasonBudgetExhausted (Admitted=False and Finished=True on a run; BudgetAvailable=False
	// on a campaign): the run was refused because its campaign's budget, expiry or
	// archived state (or its project's) does not admit it; the message names the
	// constraint as the REST error's details.constraint does. Such a run never started and
	// uses no budget.
	ReasonBudgetExhausted = "BudgetExhausted"
	// ReasonProjectNotFound and ReasonCampaignNotFound (Admitted=False): the run names a
	// project or campaign that does not exist (yet); the run waits for it.
	ReasonProjectNotFound  = "ProjectNotFound"
	ReasonCampaignNotFound = "CampaignNotFound"
	// ReasonDatasetNotFound (Admitted=False): the run names a dataset that does not exist
	// (yet); the run waits for it.
	ReasonDatasetNotFound = "DatasetNotFound"
	// ReasonDatasetNotFetched (Admitted=False): the run's dataset declares a spec.source
	// whose file the controller has not fetched yet; the run waits for it.
	ReasonDatasetNotFetched = "DatasetNotFetched"
	// ReasonNoExecutor (Admitted=False): the manager has no run executor configured.
	ReasonNoExecutor = "NoExecutor"
	// ReasonNotSubmitted (Admitted=False): the executor did not take the run (the message
	// says why); it is tried again and does not hold the tenant's queue meanwhile.
	ReasonNotSubmitted = "NotSubmitted"
	// ReasonStarted (Admitted=True): the engine is running the run.
	ReasonStarted = "Started"
	// ReasonResultsStored (ResultsReady=True): results.json and the artifacts are stored.
	ReasonResultsStored = "ResultsStored"
	// ReasonClaimsCreated (ClaimsCreated=True): the run's claims exist.
	ReasonClaimsCreated = "ClaimsCreated"
	// ReasonPublished (Announced=True): the webhook events are enqueued.
	ReasonPublished = "Published"
	// Reasons of Finished, Succeeded, Failed and Ready on a finished run: completed with
	// its claims, cancelled on request, failed by the engine (ReasonFailed, also the
	// reason of EngineFailed=True), failed by its executor (a Job that exhausted its
	// retries), or stopped after its time limit and grace period.
	ReasonCompleted        = "Completed"
	ReasonCancelled        = "Cancelled"
	ReasonFailed           = "Failed"
	ReasonExecutorFailed   = "ExecutorFailed"
	ReasonDeadlineExceeded = "DeadlineExceeded"
)

// Campaign condition types and reasons (the campaign also uses ReasonBudgetExhausted).
const (
	// CampaignConditionBudgetAvailable is True while the campaign admits new runs.
	CampaignConditionBudgetAvailable = "BudgetAvailable"
	// ReasonBudgetAvailable (BudgetAvailable=True): runs may be submitted.
	ReasonBudgetAvailable = "BudgetAvailable"
	// ReasonReconciled (Ready=True on a campaign): the counters are up to date.
	ReasonReconciled = "Reconciled"
)

// Tenant Ready reasons.
const (
	// ReasonNamespaceReady (Ready=True): the tenant's namespace exists and is labelled.
	ReasonNamespaceReady = "NamespaceReady"
	// ReasonNamespaceFailed (Ready=False): the namespace could not be made or belongs to
	// another tenant.
	ReasonNamespaceFailed = "NamespaceFailed"
	// ReasonEngineRBACFailed (Ready=False): the engine RBAC of an earlier layout could not
	// be removed from the namespace.
	ReasonEngineRBACFailed = "EngineRBACFailed"
	// ReasonQuotaFailed (Ready=False): the namespace's ResourceQuota or LimitRange
	// (disco-tenant) could not be made from the tier and spec.quota.
	ReasonQuotaFailed = "QuotaFailed"
	// ReasonKueueNotInstalled, ReasonLocalQueueNotFound and ReasonLocalQueueUnknown
	// (Ready=False): spec.localQueue names a Kueue LocalQueue the cluster does not have,
	// or that cannot be read.
	ReasonKueueNotInstalled  = "KueueNotInstalled"
	ReasonLocalQueueNotFound = "LocalQueueNotFound"
	ReasonLocalQueueUnknown  = "LocalQueueUnknown"
)

// Project Ready reasons.
const (
	// ReasonReady (Ready=True): the project's tenant exists and the project is in its
	// namespace.
	ReasonReady = "Ready"
	// ReasonTenantNotFound (Ready=False): spec.tenantID names no tenant.
	ReasonTenantNotFound = "TenantNotFound"
	// ReasonWrongNamespace (Ready=False): the project is not in its tenant's namespace.
	ReasonWrongNamespace = "WrongNamespace"
)

// Claim Ready reasons.
const (
	// ReasonRecorded (Ready=True): status.tier follows spec.tier.
	ReasonRecorded = "Recorded"
)

// Dataset Ready reasons. The reasons of a dataset that cannot be profiled (issue 14 items
// 3 and 5, issue 17 item 7) each end the dataset failed, with an event of the same reason.
const (
	// ReasonProfiled (Ready=True): the dataset is profiled; also the event reason.
	ReasonProfiled = "Profiled"
	// ReasonProfiling (Ready=False): a worker is profiling the file.
	ReasonProfiling = "Profiling"
	// ReasonProfilingQueued (Ready=False): the dataset waits for a profiling worker.
	ReasonProfilingQueued = "ProfilingQueued"
	// ReasonProfilingError (Ready=False): profiling failed for a reason that may pass
	// (the blob store was unreachable); it is retried.
	ReasonProfilingError = "ProfilingError"
	// ReasonNoProfiler (Ready=False): the manager has no profiler configured.
	ReasonNoProfiler = "NoProfiler"
	// ReasonTenantUnknown (Ready=False): the namespace belongs to no tenant yet.
	ReasonTenantUnknown = "TenantUnknown"
	// ReasonSourceUnavailable (Ready=False): the dataset's spec.source could not be read
	// (yet); it is tried again.
	ReasonSourceUnavailable = "SourceUnavailable"
	// ReasonFetching (Ready=False): the fetch Job of a dataset whose source is on a
	// PersistentVolumeClaim is copying the file.
	ReasonFetching = "Fetching"
	// ReasonSourceRefused: the source can never be read as written (a path outside the
	// allowed root, an endpoint the admin does not allow, a file too large).
	ReasonSourceRefused = "SourceRefused"

	ReasonProfilingFailed      = "ProfilingFailed"
	ReasonBlobKeyOutsideTenant = "BlobKeyOutsideTenant"
	ReasonBlobKeyNotAKey       = "BlobKeyNotAKey"
	ReasonBlobMissing          = "BlobMissing"
	ReasonSizeMismatch         = "SizeMismatch"
	ReasonChecksumMismatch     = "ChecksumMismatch"
	ReasonDatasetTooWide       = "DatasetTooWide"
	ReasonStatusRejected       = "StatusRejected"
)

// ClaimPromotion condition types and reasons.
const (
	// ClaimPromotionConditionApproved is True when the tier moved, False when governance
	// refused it (reason: the contract's constraint) or the request cannot be carried out.
	ClaimPromotionConditionApproved = "Approved"

	ReasonTierMoved       = "TierMoved"
	ReasonClaimNotFound   = "ClaimNotFound"
	ReasonWrongDirection  = "AlreadyAtOrPastTier"
	ReasonPolicyViolation = "GovernancePolicyViolation"
)

// Event reasons (the "Reason" column of the events `kubectl describe` lists) that are not
// also condition reasons. A run's events are named after its phase ("RunQueued",
// "RunRunning", "RunCompleted", ...), a ClaimPromotion's after its decision (its phase).
const (
	// EventReasonNamespaceCreated: the tenant controller created the tenant's namespace.
	EventReasonNamespaceCreated = "NamespaceCreated"
	// EventReasonStateChanged: a project moved to another state.
	EventReasonStateChanged = "StateChanged"
	// EventReasonTierChanged: a claim moved to another tier.
	EventReasonTierChanged = "TierChanged"
)
