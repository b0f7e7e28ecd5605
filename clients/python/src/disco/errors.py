"""Typed exceptions for every error the disco API answers with.

The service answers every failure with one envelope::

    {"error": {"code", "message", "status", "details", "request_id", "documentation_url"}}

:func:`error_from_response` maps it to the most specific class: first by ``code``
(governance codes, ledger integrity), then by HTTP status.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

__all__ = [
    "APIConnectionError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "BudgetExhausted",
    "ConflictError",
    "DiscoError",
    "GovernanceError",
    "GovernancePolicyViolation",
    "InternalServerError",
    "LedgerIntegrityError",
    "NegativeControlsRequired",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RunCancelledError",
    "RunFailedError",
    "ServiceUnavailableError",
    "TruthDialThresholdNotMet",
    "UnprocessableEntityError",
    "WaitTimeoutError",
    "WebhookVerificationError",
    "error_from_response",
    "parse_retry_after",
]


class DiscoError(Exception):
    """Base of every error raised by the client for an API answer.

    Attributes mirror the error envelope; ``status`` is the HTTP status (0 when the
    error did not come from an HTTP response).
    """

    def __init__(
        self,
        message: str,
        *,
        code: str = "",
        status: int = 0,
        details: Mapping[str, Any] | None = None,
        request_id: str | None = None,
        documentation_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.details: dict[str, Any] = dict(details or {})
        self.request_id = request_id
        self.documentation_url = documentation_url
        self.headers: dict[str, str] = dict(headers or {})
        self.body = body

    @property
    def constraint(self) -> str | None:
        """``details.constraint``: what blocked a governance decision, if given."""
        c = self.details.get("constraint")
        return c if isinstance(c, str) else None

    def __str__(self) -> str:
        parts = []
        if self.status:
            parts.append(str(self.status))
        if self.code:
            parts.append(self.code)
        head = " ".join(parts)
        s = f"{head}: {self.message}" if head else self.message
        if self.request_id:
            s += f" (request_id={self.request_id})"
        return s

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, "
            f"message={self.message!r}, request_id={self.request_id!r})"
        )


class APIConnectionError(DiscoError):
    """The request did not get an answer (connection refused, reset, DNS, ...)."""


class APITimeoutError(APIConnectionError):
    """The request timed out."""


class BadRequestError(DiscoError):
    """400: the request is malformed or a parameter is invalid (``details.fields``)."""

    @property
    def fields(self) -> list[dict[str, Any]]:
        f = self.details.get("fields")
        return [x for x in f if isinstance(x, dict)] if isinstance(f, list) else []


class AuthenticationError(DiscoError):
    """401: the credential is missing, expired or invalid."""


class PermissionDeniedError(DiscoError):
    """403: insufficient scope, or a governance policy refused the operation."""


class GovernanceError(PermissionDeniedError):
    """403 refusals by a governance rule; ``constraint`` names the rule."""


class GovernancePolicyViolation(GovernanceError):
    """The operation would exceed the governance (promotion) ceiling."""


class TruthDialThresholdNotMet(GovernanceError):
    """The claim's Truth Dial score is below the required threshold."""


class NegativeControlsRequired(GovernanceError):
    """Promotion requires passing negative controls first."""


class BudgetExhausted(GovernanceError):
    """The campaign budget does not allow the run."""


class NotFoundError(DiscoError):
    """404: the resource does not exist or is not reachable with this credential."""


class ConflictError(DiscoError):
    """409: duplicate run, reused idempotency key, concurrent modification, wrong state."""


class PayloadTooLargeError(DiscoError):
    """413: the request body (usually a dataset) exceeds the service's limit."""


class UnprocessableEntityError(DiscoError):
    """422: e.g. unsupported dataset format, invalid constraint."""


class RateLimitError(DiscoError):
    """429: too many requests; ``retry_after`` is the wait the service asked for."""

    @property
    def retry_after(self) -> float | None:
        return parse_retry_after(self.headers.get("retry-after"))


class InternalServerError(DiscoError):
    """500 (and other unexpected 5xx)."""


class LedgerIntegrityError(InternalServerError):
    """The Evidence Ledger's hash chain or Merkle tree did not verify."""


class ServiceUnavailableError(DiscoError):
    """503: the service is starting, in maintenance or over capacity."""


class RunFailedError(DiscoError):
    """Raised by ``runs.wait`` when the run ends in status failed."""


class RunCancelledError(DiscoError):
    """Raised by ``runs.wait`` when the run was cancelled."""


class WaitTimeoutError(DiscoError, TimeoutError):
    """Raised by the ``wait`` helpers when the timeout passes first."""


class WebhookVerificationError(DiscoError):
    """A webhook delivery's signature or timestamp did not verify."""


_BY_CODE: dict[str, type[DiscoError]] = {
    "governance_policy_violation": GovernancePolicyViolation,
    "truth_dial_threshold_not_met": TruthDialThresholdNotMet,
    "negative_controls_required": NegativeControlsRequired,
    "budget_exhausted": BudgetExhausted,
    "ledger_integrity_error": LedgerIntegrityError,
}

_BY_STATUS: dict[int, type[DiscoError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    500: InternalServerError,
    503: ServiceUnavailableError,
}


def _class_for(status: int, code: str) -> type[DiscoError]:
    cls = _BY_CODE.get(code)
    if cls is not None:
        # A governance code on an unexpected status still gets its class, unless the
        # status says something entirely different (e.g. 401).
        if issubclass(cls, PermissionDeniedError) and status not in (0, 403):
            return _BY_STATUS.get(status, DiscoError)
        return cls
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    if status >= 500:
        return InternalServerError
    if 400 <= status < 500:
        return BadRequestError if status in (405, 406, 411, 414, 415, 431) else DiscoError
    return DiscoError


def error_from_response(status: int, content: bytes, headers: Mapping[str, str]) -> DiscoError:
    """Build the typed error for a non-2xx response."""
    hdrs = {k.lower(): v for k, v in headers.items()}
    body: Any = None
    try:
        body = json.loads(content) if content else None
    except (ValueError, UnicodeDecodeError):
        body = None
    code, message = "", ""
    details: dict[str, Any] = {}
    request_id = hdrs.get("x-request-id")
    doc_url: str | None = None
    env = body.get("error") if isinstance(body, dict) else None
    if isinstance(env, dict):
        code = str(env.get("code") or "")
        message = str(env.get("message") or "")
        d = env.get("details")
        details = dict(d) if isinstance(d, dict) else {}
        request_id = env.get("request_id") or request_id
        doc_url = env.get("documentation_url")
    elif isinstance(env, str) and isinstance(body, dict):
        # OAuth 2.0 token endpoint style: {"error": "invalid_grant", "error_description": ...}
        code = env
        message = str(body.get("error_description") or env)
        details = {k: v for k, v in body.items() if k not in ("error", "error_description")}
    if not message:
        text = content.decode("utf-8", "replace").strip() if content else ""
        message = text[:500] or f"HTTP {status}"
    cls = _class_for(status, code)
    return cls(
        message,
        code=code,
        status=status,
        details=details,
        request_id=request_id,
        documentation_url=doc_url,
        headers=hdrs,
        body=body,
    )


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    import datetime as _dt

    now = _dt.datetime.now(when.tzinfo or _dt.timezone.utc)
    return max(0.0, (when - now).total_seconds())
