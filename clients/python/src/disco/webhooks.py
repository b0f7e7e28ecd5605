"""Verification of disco webhook deliveries.

Each delivery carries ``X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>``
computed with the registration's secret over the bytes ``"<event id>.<t>.<raw body>"``.
The same HMAC, base64-encoded, is also sent as Standard Webhooks headers
(``webhook-id``, ``webhook-timestamp``, ``webhook-signature: v1,<base64>``).

::

    event = disco.webhooks.verify(request.body, request.headers, secret)

Always pass the raw body bytes as received: re-serialised JSON will not verify.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping

from pydantic import ValidationError

from .errors import WebhookVerificationError
from .models import Event

__all__ = ["Event", "WebhookVerificationError", "sign", "signature_headers", "verify"]

SIGNATURE_HEADER = "X-Service-Signature"
DEFAULT_TOLERANCE = 300


def _mac(secret: str | bytes, event_id: str, timestamp: int, payload: bytes) -> bytes:
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    msg = event_id.encode("utf-8") + b"." + str(timestamp).encode("ascii") + b"." + payload
    return hmac.new(key, msg, hashlib.sha256).digest()


def sign(payload: bytes, secret: str | bytes, event_id: str, timestamp: int | None = None) -> str:
    """The X-Service-Signature value for a payload (for tests and local receivers)."""
    t = int(time.time()) if timestamp is None else int(timestamp)
    return f"t={t},v1={_mac(secret, event_id, t, payload).hex()}"


def signature_headers(
    payload: bytes, secret: str | bytes, event_id: str, timestamp: int | None = None
) -> dict[str, str]:
    """Every signature header the service sends with a delivery."""
    t = int(time.time()) if timestamp is None else int(timestamp)
    mac = _mac(secret, event_id, t, payload)
    return {
        SIGNATURE_HEADER: f"t={t},v1={mac.hex()}",
        "webhook-id": event_id,
        "webhook-timestamp": str(t),
        "webhook-signature": "v1," + base64.b64encode(mac).decode("ascii"),
    }


def _parse_signature(value: str) -> tuple[int, list[str]]:
    t: int | None = None
    sigs: list[str] = []
    for part in value.split(","):
        k, sep, v = part.strip().partition("=")
        if not sep:
            continue
        if k == "t":
            try:
                t = int(v)
            except ValueError as exc:
                raise WebhookVerificationError("signature timestamp is not an integer", code="malformed_signature") from exc
        elif k == "v1":
            sigs.append(v.strip().lower())
    if t is None or not sigs:
        raise WebhookVerificationError(
            f"{SIGNATURE_HEADER} must be t=<unix seconds>,v1=<hex>", code="malformed_signature"
        )
    return t, sigs


def verify(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str | bytes,
    tolerance: int = DEFAULT_TOLERANCE,
    *,
    now: float | None = None,
) -> Event:
    """Verify a delivery and return its event.

    Raises WebhookVerificationError when the signature header is missing or malformed,
    the timestamp is further than ``tolerance`` seconds from now, the HMAC does not
    match, or the body is not an event envelope.
    """
    body = payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)
    lower = {k.lower(): v for k, v in headers.items()}
    header = lower.get(SIGNATURE_HEADER.lower())
    if not header:
        raise WebhookVerificationError(f"missing {SIGNATURE_HEADER} header", code="missing_signature")
    t, sigs = _parse_signature(header)
    current = time.time() if now is None else now
    if tolerance and abs(current - t) > tolerance:
        raise WebhookVerificationError(
            f"signature timestamp {t} is more than {tolerance} s from now", code="timestamp_out_of_tolerance"
        )
    try:
        doc = json.loads(body)
    except ValueError as exc:
        raise WebhookVerificationError("the body is not JSON", code="malformed_body") from exc
    event_id = lower.get("webhook-id") or (doc.get("id") if isinstance(doc, dict) else None)
    if not isinstance(event_id, str) or not event_id:
        raise WebhookVerificationError("no event id (webhook-id header or body id)", code="malformed_body")
    expected = _mac(secret, event_id, t, body).hex()
    if not any(hmac.compare_digest(expected, s) for s in sigs):
        raise WebhookVerificationError("signature mismatch", code="signature_mismatch")
    if isinstance(doc, dict) and doc.get("id") not in (None, event_id):
        raise WebhookVerificationError("body id does not match the webhook-id header", code="id_mismatch")
    try:
        return Event.model_validate(doc)
    except ValidationError as exc:
        raise WebhookVerificationError(f"not an event envelope: {exc}", code="malformed_body") from exc
