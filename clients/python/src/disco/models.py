"""Pydantic models of the disco REST API resources.

Each model subclasses the class generated from the service's OpenAPI document
(``disco._generated``, written by ``hack/gen-python-models.sh``), so it has every field the
service documents, typed as documented; a model here only adds the defaults and required
fields the client has always had, and helpers. Every model tolerates unknown fields (``extra="allow"``): the API may add fields within
``/v1`` at any time, and they stay reachable as attributes and in ``model_dump()``.
Fields the contract marks optional, or that a resource only carries in some states, have
defaults, so a partial object (for example a project list item) still parses.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from . import _generated as g
from ._modelbase import DiscoModel

__all__ = [
    "APIKey",
    "Artifact",
    "Campaign",
    "CampaignBudget",
    "CampaignGovernance",
    "Claim",
    "ClaimEvidence",
    "ClaimScope",
    "ColumnHistogram",
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
    "User",
    "ValueCount",
    "Webhook",
    "WebhookDelivery",
    "WebhookDeliveryAttempt",
    "Tier",
    "Mode",
    "TIERS",
]

Tier = Literal["explore", "validate", "publish"]
Mode = Literal["symbolic", "neural", "neuro_symbolic", "causal"]

#: Truth Dial tiers, lowest first.
TIERS: tuple[str, ...] = ("explore", "validate", "publish")


# Projects ---------------------------------------------------------------------------


class GovernanceSettings(g.Governance):
    pass


class ProjectSettings(g.ProjectSettings):
    governance: GovernanceSettings = Field(default_factory=GovernanceSettings)


class Project(g.Project):
    id: str
    name: str = ""
    description: str = ""
    status: str = "active"
    settings: ProjectSettings = Field(default_factory=ProjectSettings)


# Campaigns --------------------------------------------------------------------------


class CampaignBudget(g.CampaignBudget):
    compute_units: int = 0
    compute_units_used: int = 0
    max_runs: int = 0
    runs_completed: int = 0


class CampaignGovernance(g.CampaignGovernance):
    pass


class Campaign(g.Campaign):
    id: str
    name: str = ""
    description: str = ""
    status: str = "active"
    budget: CampaignBudget = Field(default_factory=CampaignBudget)
    governance: CampaignGovernance = Field(default_factory=CampaignGovernance)


# Datasets ---------------------------------------------------------------------------


class Dataset(g.Dataset):
    id: str
    name: str = ""
    status: str = "profiling"
    size_bytes: int = 0
    rows: int = 0
    variables: list[str] = Field(default_factory=list)
    profile_ready: bool = False


class ColumnHistogram(g.ColumnHistogram):
    """A numeric column's distribution: equal-width bins of ``counts`` over [low, high]."""

    counts: list[int] = Field(default_factory=list)


class ValueCount(g.ValueCount):
    """One of a categorical column's most frequent values, with its count."""


class ColumnProfile(g.ColumnProfile):
    name: str
    null_count: int = 0
    histogram: ColumnHistogram | None = None
    # list is invariant: a list of the public subclass does not type as the generated list.
    top_values: list[ValueCount] | None = None  # type: ignore[assignment]


class DataQuality(g.DataQuality):
    pass


class DatasetProfile(g.DatasetProfile):
    dataset_id: str
    status: str = "ready"
    row_count: int = 0
    column_count: int = 0
    # list is invariant: a list of the public subclass does not type as the generated list.
    columns: list[ColumnProfile] = Field(default_factory=list)  # type: ignore[assignment]
    quality: DataQuality = Field(default_factory=DataQuality)


# Runs -------------------------------------------------------------------------------


class Run(g.Run):
    id: str
    status: str = "queued"
    # Kept as plain dicts, as the client has always exposed them (the generated
    # RunParameters and RunGovernance describe their keys).
    parameters: dict[str, Any] = Field(default_factory=dict)  # type: ignore[assignment]
    governance: dict[str, Any] | None = None  # type: ignore[assignment]
    cancel_requested: bool = False


class PipelineStage(g.Stage):
    name: str
    status: str = "pending"


class RunPipeline(g.Pipeline):
    stages: list[PipelineStage] = Field(default_factory=list)  # type: ignore[assignment]


class RunStatus(g.RunStatus):
    id: str
    status: str
    pipeline: RunPipeline | None = None

    @property
    def finished(self) -> bool:
        """Whether the run has reached a final state."""
        return self.status in ("completed", "failed", "cancelled")


class RunSummary(g.RunSummary):
    pass


class RunResults(g.RunResults):
    run_id: str
    status: str = "completed"
    claims_count: int = 0
    artifacts_count: int = 0
    summary: RunSummary = Field(default_factory=RunSummary)


class Artifact(g.Artifact):
    id: str


# Claims -----------------------------------------------------------------------------


class ClaimScope(g.ClaimScope):
    variables: list[str] = Field(default_factory=list)


class ClaimEvidence(g.LawEvidence, g.CausalEvidence, g.ConservationEvidence):
    """Evidence of a claim: the fields of every claim type's evidence schema (LawEvidence,
    CausalEvidence, ConservationEvidence); those of other types than the claim's are None."""


class Claim(g.Claim):
    """A law, causal or conservation claim. Type-specific fields are None on other types."""

    id: str
    type: str
    tier: str = "explore"
    summary: str = ""
    scope: ClaimScope = Field(default_factory=ClaimScope)
    evidence: ClaimEvidence = Field(default_factory=ClaimEvidence)

    @property
    def is_law(self) -> bool:
        return self.type == "law"

    @property
    def is_causal(self) -> bool:
        return self.type == "causal"

    @property
    def is_conservation(self) -> bool:
        return self.type == "conservation"


class GovernanceChecks(g.GovernanceChecks):
    pass


class PromotionResult(g.PromotionResult, g.DemotionResult):
    """The answer to a promotion or a demotion."""

    id: str
    tier: str
    governance_checks: GovernanceChecks | None = None


# Ledger -----------------------------------------------------------------------------


class LedgerEntry(g.LedgerEntry):
    id: str
    event_type: str
    details: dict[str, Any] = Field(default_factory=dict)


class LedgerVerification(g.LedgerVerification):
    """Result of ``GET /projects/:id/ledger/verify``: the service recomputed the hash
    chain and Merkle tree; ``checkpoint`` is the signed tree head (only when valid)."""

    valid: bool = False
    size: int = 0

    @property
    def ok(self) -> bool:
        """True when the service reports the ledger as intact."""
        return self.valid


class LedgerProof(g.InclusionProof):
    """Merkle inclusion proof of one ledger entry (``.../ledger/:entry_id/proof``)."""

    hashes: list[str] = Field(default_factory=list)


class LedgerConsistency(g.ConsistencyProof):
    """Merkle consistency proof between an older tree head and the current one."""

    old_size: int = 0
    new_size: int = 0
    hashes: list[str] = Field(default_factory=list)


# Webhooks ---------------------------------------------------------------------------


class Webhook(g.Webhook):
    id: str
    url: str
    events: list[str] = Field(default_factory=list)


class WebhookDeliveryAttempt(g.Attempt):
    """One attempt of a webhook delivery, with the signature headers it was sent with."""


class WebhookDelivery(g.Delivery):
    id: str
    attempts: int = 0
    # list is invariant: a list of the public subclass does not type as the generated list.
    attempt_log: list[WebhookDeliveryAttempt] = Field(default_factory=list)  # type: ignore[assignment]


class Event(DiscoModel):
    """A webhook delivery envelope (not an OpenAPI schema: it is what the service posts)."""

    id: str
    type: str
    created_at: datetime | None = None
    data: dict[str, Any] = Field(default_factory=dict)


# API keys and tokens ----------------------------------------------------------------


class APIKey(g.APIKey):
    id: str
    scopes: list[str] = Field(default_factory=list)
    project_ids: list[str] = Field(default_factory=list)


class User(g.User):
    """A user of the tenant (``/users``): ``status`` is active or disabled."""

    id: str
    username: str = ""
    status: str = "active"


class TokenResponse(g.TokenResponse):
    access_token: str
    token_type: str = "Bearer"

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
