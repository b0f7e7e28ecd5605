"""disco.webhooks.verify: the X-Service-Signature scheme of DESIGN.md."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest

import disco
from disco import webhooks

SECRET = "whsec_test"
EVENT = {
    "id": "evt_" + "c" * 26,
    "type": "run.completed",
    "created_at": "2025-01-01T00:00:00Z",
    "data": {"run_id": "run_x", "project_id": "proj_x", "campaign_id": "camp_x", "mode": "symbolic", "status": "completed", "claims_count": 2, "duration_ms": 10},
}


def delivery(now: int | None = None) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(EVENT).encode()
    t = int(time.time()) if now is None else now
    mac = hmac.new(SECRET.encode(), f"{EVENT['id']}.{t}.".encode() + body, hashlib.sha256).hexdigest()
    return body, {"X-Service-Signature": f"t={t},v1={mac}", "Content-Type": "application/json"}


def test_good_signature() -> None:
    body, headers = delivery()
    ev = disco.webhooks.verify(body, headers, SECRET)
    assert isinstance(ev, disco.Event)
    assert ev.id == EVENT["id"] and ev.type == "run.completed" and ev.data["claims_count"] == 2


def test_header_names_are_case_insensitive_and_webhook_id_used() -> None:
    body, headers = delivery()
    lower = {k.lower(): v for k, v in headers.items()}
    lower["webhook-id"] = EVENT["id"]
    assert webhooks.verify(body, lower, SECRET).id == EVENT["id"]


def test_tampered_body() -> None:
    body, headers = delivery()
    tampered = body.replace(b'"claims_count": 2', b'"claims_count": 3')
    assert tampered != body
    with pytest.raises(disco.WebhookVerificationError) as ei:
        webhooks.verify(tampered, headers, SECRET)
    assert ei.value.code == "signature_mismatch"


def test_wrong_secret() -> None:
    body, headers = delivery()
    with pytest.raises(disco.WebhookVerificationError):
        webhooks.verify(body, headers, "other")


def test_stale_timestamp() -> None:
    body, headers = delivery(now=int(time.time()) - 301)
    with pytest.raises(disco.WebhookVerificationError) as ei:
        webhooks.verify(body, headers, SECRET)
    assert ei.value.code == "timestamp_out_of_tolerance"
    # accepted with a wider tolerance
    assert webhooks.verify(body, headers, SECRET, tolerance=600).id == EVENT["id"]


def test_future_timestamp() -> None:
    body, headers = delivery(now=int(time.time()) + 400)
    with pytest.raises(disco.WebhookVerificationError):
        webhooks.verify(body, headers, SECRET)


def test_missing_or_malformed_header() -> None:
    body, _ = delivery()
    with pytest.raises(disco.WebhookVerificationError) as ei:
        webhooks.verify(body, {}, SECRET)
    assert ei.value.code == "missing_signature"
    with pytest.raises(disco.WebhookVerificationError):
        webhooks.verify(body, {"X-Service-Signature": "v1=abc"}, SECRET)
    with pytest.raises(disco.WebhookVerificationError):
        webhooks.verify(body, {"X-Service-Signature": "t=notanumber,v1=abc"}, SECRET)


def test_signed_timestamp_cannot_be_swapped() -> None:
    body, headers = delivery()
    t, v1 = headers["X-Service-Signature"].split(",")
    forged = {"X-Service-Signature": f"t={int(t[2:]) + 1},{v1}"}
    with pytest.raises(disco.WebhookVerificationError):
        webhooks.verify(body, forged, SECRET)


def test_one_of_several_signatures_matches() -> None:
    body, headers = delivery()
    headers["X-Service-Signature"] = headers["X-Service-Signature"].replace("v1=", "v1=" + "0" * 64 + ",v1=")
    assert webhooks.verify(body, headers, SECRET).id == EVENT["id"]


def test_sign_roundtrip_and_standard_headers() -> None:
    body = json.dumps(EVENT).encode()
    hs = webhooks.signature_headers(body, SECRET, EVENT["id"])
    assert hs["webhook-signature"].startswith("v1,")
    assert webhooks.verify(body, hs, SECRET).type == "run.completed"
    assert webhooks.sign(body, SECRET, EVENT["id"], timestamp=5).startswith("t=5,v1=")
