"""Pydantic models of the disco REST API resources.

Every model tolerates unknown fields (``extra="allow"``): the API may add fields within
``/v1`` at any time, and they stay reachable as attributes and in ``model_dump()``.
Fields the contract marks optional, or that a resource only carries in some states, have
defaults, so a partial object (for example a project list item) still parses.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "APIKey",
    "Artifact",
    "Campaign",
    "CampaignBudget",
    "CampaignGovernance",
    "Claim",
    "ClaimEvidence",
    "ClaimScope",
    "ColumnProfile",
    "DataQuality",
    "Dataset",
    "DatasetProfile",
    "DiscoModel",
    "Event",
    "GovernanceChecks",
    "GovernanceSettings",
    "LedgerConsistency",
    "LedgerEntry",
    "LedgerProof",
    "LedgerVerification",
    "Page",
    "PipelineStage",
    "Project",
    "ProjectSettings",
    "PromotionResult",
    "Run",
    "RunPipeline",
    "RunResults",
    "RunStatus",
    "RunSummary",
    "TokenResponse",
    "Webhook",
    "WebhookDelivery",
    "Tier",
    "Mode",
    "TIERS",
]

Tier = Literal["explore", "validate", "publish"]
Mode = Literal["symbolic", "neural", "neuro_symbolic", "causal"]

#: Truth Dial tiers, lowest first.
TIERS: tuple[str, ...] = ("explore", "validate", "publish")


class DiscoModel(BaseModel):
    """Base of every resource model: unknown fields are kept, not rejected."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())


# Projects ---------------------------------------------------------------------------


class GovernanceSettings(DiscoModel):
    promotion_ceiling: str | None = None
    require_negative_controls: bool | None = None
    truth_dial_threshold: float | None = None


class ProjectSettings(DiscoModel):
    default_mode: str | None = None
    governance: GovernanceSettings = Field(default_factory=GovernanceSettings)


class Project(DiscoModel):
    id: str
    name: str = ""
    description: str = ""
    status: str = "active"
    settings: ProjectSettings = Field(default_factory=ProjectSettings)
    created_at: datetime | None = None
    updated_at: datetime | None = None
    created_by: str | None = None
    tenant_id: str | None = None


# Campaigns --------------------------------------------------------------------------


class CampaignBudget(DiscoModel):
    compute_units: int = 0
    compute_units_used: int = 0
    max_runs: int = 0
    runs_completed: int = 0
    expires_at: datetime | None = None


class CampaignGovernance(DiscoModel):
    promotion_ceiling: str | None = None
    require_negative_controls: bool | None = None
    auto_promote_to: str | None = None


class Campaign(DiscoModel):
    id: str
    project_id: str | None = None
    name: str = ""
    description: str = ""
    status: str = "active"
    budget: CampaignBudget = Field(default_factory=CampaignBudget)
    governance: CampaignGovernance = Field(default_factory=CampaignGovernance)
    created_at: datetime | None = None
    created_by: str | None = None


# Datasets ---------------------------------------------------------------------------


class Dataset(DiscoModel):
    id: str
    project_id: str | None = None
    name: str = ""
    format: str | None = None
    status: str = "profiling"
    size_bytes: int = 0
    sha256: str | None = None
    rows: int = 0
    columns: int | None = None
    variables: list[str] = Field(default_factory=list)
    created_at: datetime | None = None
    created_by: str | None = None
    profile_ready: bool = False
    message: str | None = None


class ColumnProfile(DiscoModel):
    name: str
    dtype: str | None = None
    mean: float | None = None
    std: float | None = None
    null_count: int = 0


class DataQuality(DiscoModel):
    completeness: float | None = None
    duplicate_rows: int | None = None
    outlier_fraction: float | None = None


class DatasetProfile(DiscoModel):
    dataset_id: str
    status: str = "ready"
    row_count: int = 0
    column_count: int = 0
    columns: list[ColumnProfile] = Field(default_factory=list)
    quality: DataQuality = Field(default_factory=DataQuality)
    profiled_at: datetime | None = None


# Runs -------------------------------------------------------------------------------


class Run(DiscoModel):
    id: str
    project_id: str | None = None
    campaign_id: str | None = None
    mode: str | None = None
    dataset_id: str | None = None
    status: str = "queued"
    created_at: datetime | None = None
    created_by: str | None = None
    parameters: dict[str, Any] = Field(default_factory=dict)
    governance: dict[str, Any] | None = None
    compute_units_estimated: int | None = None
    cancel_requested: bool = False
    message: str | None = None


class PipelineStage(DiscoModel):
    name: str
    status: str = "pending"
    duration_ms: int | None = None
    progress: float | None = None


class RunPipeline(DiscoModel):
    current_stage: str | None = None
    stages: list[PipelineStage] = Field(default_factory=list)


class RunStatus(DiscoModel):
    id: str
    status: str
    compute_units_used: int | None = None
    started_at: datetime | None = None
    estimated_completion: datetime | None = None
    progress: float | None = None
    pipeline: RunPipeline | None = None
    message: str | None = None

    @property
    def finished(self) -> bool:
        """Whether the run has reached a final state."""
        return self.status in ("completed", "failed", "cancelled")


class RunSummary(DiscoModel):
    best_claim_id: str | None = None
    best_claim_type: str | None = None
    best_claim_score: float | None = None
    negative_controls_passed: bool | None = None


class RunResults(DiscoModel):
    run_id: str
    status: str = "completed"
    claims_count: int = 0
    artifacts_count: int = 0
    summary: RunSummary = Field(default_factory=RunSummary)
    compute_units_used: int | None = None
    duration_ms: int | None = None
    completed_at: datetime | None = None


class Artifact(DiscoModel):
    id: str
    run_id: str | None = None
    name: str | None = None
    kind: str | None = None
    media_type: str | None = None
    size_bytes: int | None = None
    sha256: str | None = None
    created_at: datetime | None = None


# Claims -----------------------------------------------------------------------------


class ClaimScope(DiscoModel):
    variables: list[str] = Field(default_factory=list)
    domain: str | None = None
    constraints_satisfied: list[str] | None = None


class ClaimEvidence(DiscoModel):
    """Evidence of a claim; which fields are set depends on the claim type."""

    negative_controls_passed: bool | None = None
    # law
    r_squared: float | None = None
    cross_validation_score: float | None = None
    # causal
    causal_confidence: float | None = None
    effect_strength: float | None = None
    granger_score: float | None = None
    intervention_effect_size: float | None = None
    # conservation
    relative_variation: float | None = None
    trajectories: int | None = None


class Claim(DiscoModel):
    """A law, causal or conservation claim. Type-specific fields are None on other types."""

    id: str
    type: str
    tier: str = "explore"
    summary: str = ""
    score: float | None = None
    scope: ClaimScope = Field(default_factory=ClaimScope)
    evidence: ClaimEvidence = Field(default_factory=ClaimEvidence)
    ledger_entry_id: str | None = None
    run_id: str | None = None
    project_id: str | None = None
    campaign_id: str | None = None
    created_at: datetime | None = None
    # law and conservation: the expression (the conserved quantity for conservation)
    expression: str | None = None
    # conservation
    variables: list[str] | None = None
    # causal
    cause: str | None = None
    effect: str | None = None
    direction: str | None = None
    temporal_scope: str | None = None
    intervention_markers: list[str] | None = None

    @property
    def is_law(self) -> bool:
        return self.type == "law"

    @property
    def is_causal(self) -> bool:
        return self.type == "causal"

    @property
    def is_conservation(self) -> bool:
        return self.type == "conservation"


class GovernanceChecks(DiscoModel):
    truth_dial_score: float | None = None
    threshold: float | None = None
    threshold_met: bool | None = None
    negative_controls: str | None = None
    policy_ceiling: str | None = None
    within_ceiling: bool | None = None


class PromotionResult(DiscoModel):
    id: str
    type: str | None = None
    tier: str
    previous_tier: str | None = None
    promoted_at: datetime | None = None
    promoted_by: str | None = None
    demoted_at: datetime | None = None
    demoted_by: str | None = None
    rationale: str | None = None
    ledger_entry_id: str | None = None
    governance_checks: GovernanceChecks | None = None


# Ledger -----------------------------------------------------------------------------


class LedgerEntry(DiscoModel):
    id: str
    project_id: str | None = None
    event_type: str
    claim_id: str | None = None
    run_id: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    actor: str | None = None
    timestamp: datetime | None = None
    hash: str | None = None
    prev_hash: str | None = None
    tree_index: int | None = None


class LedgerVerification(DiscoModel):
    """Result of ``GET /projects/:id/ledger/verify``: the service recomputed the hash
    chain and Merkle tree; ``checkpoint`` is the signed tree head (only when valid)."""

    project_id: str | None = None
    valid: bool = False
    size: int = 0
    root_hash: str | None = None
    checkpoint: str | None = None
    first_bad_index: int | None = None
    reason: str | None = None
    verified_at: datetime | None = None

    @property
    def ok(self) -> bool:
        """True when the service reports the ledger as intact."""
        return self.valid


class LedgerProof(DiscoModel):
    """Merkle inclusion proof of one ledger entry (``.../ledger/:entry_id/proof``)."""

    entry_id: str | None = None
    entry_hash: str | None = None
    leaf_index: int | None = None
    tree_size: int | None = None
    root_hash: str | None = None
    hashes: list[str] = Field(default_factory=list)
    checkpoint: str | None = None


class LedgerConsistency(DiscoModel):
    """Merkle consistency proof between an older tree head and the current one."""

    old_size: int = 0
    new_size: int = 0
    old_root_hash: str | None = None
    new_root_hash: str | None = None
    hashes: list[str] = Field(default_factory=list)
    checkpoint: str | None = None


# Webhooks ---------------------------------------------------------------------------


class Webhook(DiscoModel):
    id: str
    url: str
    events: list[str] = Field(default_factory=list)
    project_id: str | None = None
    status: str | None = None
    created_at: datetime | None = None


class WebhookDelivery(DiscoModel):
    id: str
    webhook_id: str | None = None
    event_id: str | None = None
    event_type: str | None = None
    status: str | None = None
    attempts: int = 0
    next_attempt_at: datetime | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


class Event(DiscoModel):
    """A webhook delivery envelope."""

    id: str
    type: str
    created_at: datetime | None = None
    data: dict[str, Any] = Field(default_factory=dict)


# API keys and tokens ----------------------------------------------------------------


class APIKey(DiscoModel):
    id: str
    name: str | None = None
    prefix: str | None = None
    scopes: list[str] = Field(default_factory=list)
    project_ids: list[str] = Field(default_factory=list)
    status: str | None = None
    created_at: datetime | None = None
    created_by: str | None = None
    expires_at: datetime | None = None
    revoked_at: datetime | None = None
    grace_until: datetime | None = None
    replaced_by: str | None = None
    #: The plaintext key; only present in the response that creates or rolls it.
    key: str | None = None


class TokenResponse(DiscoModel):
    access_token: str
    token_type: str = "Bearer"
    expires_in: int | None = None
    refresh_token: str | None = None
    scope: str | None = None
    tenant_id: str | None = None

    @property
    def scopes(self) -> list[str]:
        return self.scope.split() if self.scope else []


# Lists ------------------------------------------------------------------------------

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    """One page of a list response."""

    model_config = ConfigDict(extra="allow")

    object: str = "list"
    data: list[T] = Field(default_factory=list)
    has_more: bool = False
    next_cursor: str | None = None
    total_count: int | None = None
