"""disco-client: the Python client of the disco scientific discovery service.

    import disco

    client = disco.Client()          # DISCO_BASE_URL, DISCO_API_KEY
    project = client.projects.create("pendulum")
    for claim in client.claims.list(project.id, tier="explore"):
        print(claim.summary, claim.score)

``disco.AsyncClient`` has the same resources with ``await`` and ``async for``.
"""

from . import ledger, models, oauth, webhooks
from ._async.client import AsyncClient, AsyncPaginator
from ._base import NOT_GIVEN, RetryPolicy, TokenState
from ._sync.client import Client, Paginator
from ._version import __version__
from .ledger import LedgerConsistencyError
from .errors import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    BudgetExhausted,
    ConflictError,
    DiscoError,
    GovernanceError,
    GovernancePolicyViolation,
    InternalServerError,
    LedgerIntegrityError,
    NegativeControlsRequired,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    RunCancelledError,
    RunFailedError,
    ServiceUnavailableError,
    TruthDialThresholdNotMet,
    UnprocessableEntityError,
    WaitTimeoutError,
    WebhookVerificationError,
)
from .models import (
    APIKey,
    Artifact,
    Campaign,
    Claim,
    Dataset,
    DatasetProfile,
    Event,
    LedgerConsistency,
    LedgerEntry,
    LedgerProof,
    LedgerVerification,
    Page,
    Project,
    PromotionResult,
    Run,
    RunResults,
    RunStatus,
    TokenResponse,
    User,
    Webhook,
    WebhookDelivery,
    WebhookDeliveryAttempt,
)

__all__ = [
    "NOT_GIVEN",
    "APIConnectionError",
    "APIKey",
    "APITimeoutError",
    "Artifact",
    "AsyncClient",
    "AsyncPaginator",
    "AuthenticationError",
    "BadRequestError",
    "BudgetExhausted",
    "Campaign",
    "Claim",
    "Client",
    "ConflictError",
    "Dataset",
    "DatasetProfile",
    "DiscoError",
    "Event",
    "GovernanceError",
    "GovernancePolicyViolation",
    "InternalServerError",
    "LedgerConsistency",
    "LedgerConsistencyError",
    "LedgerEntry",
    "LedgerIntegrityError",
    "LedgerProof",
    "LedgerVerification",
    "NegativeControlsRequired",
    "NotFoundError",
    "Page",
    "Paginator",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "Project",
    "PromotionResult",
    "RateLimitError",
    "RetryPolicy",
    "Run",
    "RunCancelledError",
    "RunFailedError",
    "RunResults",
    "RunStatus",
    "ServiceUnavailableError",
    "TokenResponse",
    "TokenState",
    "TruthDialThresholdNotMet",
    "UnprocessableEntityError",
    "User",
    "WaitTimeoutError",
    "Webhook",
    "WebhookDelivery",
    "WebhookDeliveryAttempt",
    "WebhookVerificationError",
    "__version__",
    "ledger",
    "models",
    "oauth",
    "webhooks",
]
