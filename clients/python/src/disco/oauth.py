"""OAuth 2.0 authorization code flow with PKCE (RFC 7636, S256) for disco.

Typical use in a command-line tool or web app::

    req = disco.oauth.authorization_url(base_url, client_id="cli_...",
                                        redirect_uri="http://127.0.0.1:8765/callback",
                                        scopes=["projects:read", "claims:read"])
    # send the user to req.url; on the redirect, check state == req.state, then:
    client = disco.Client(base_url, client_id="cli_...")
    client.oauth.exchange_code(code, redirect_uri=..., code_verifier=req.code_verifier)
    client.projects.list()   # the session token is refreshed automatically

The token exchange and refresh are ``POST /auth/token`` with a JSON body
(grant_type ``authorization_code`` or ``refresh_token``); refresh tokens rotate, and the
client always keeps the newest one.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

__all__ = [
    "AuthorizationRequest",
    "PKCEPair",
    "authorization_url",
    "code_challenge",
    "generate_pkce",
]


@dataclass(frozen=True)
class PKCEPair:
    code_verifier: str
    code_challenge: str
    code_challenge_method: str = "S256"


@dataclass(frozen=True)
class AuthorizationRequest:
    """Where to send the user, and what to keep until the redirect comes back."""

    url: str
    state: str
    code_verifier: str
    redirect_uri: str
    client_id: str


def code_challenge(verifier: str) -> str:
    """BASE64URL(SHA256(verifier)) without padding (the S256 method)."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def generate_pkce(length: int = 64) -> PKCEPair:
    """A fresh code verifier (43 to 128 unreserved characters) and its S256 challenge."""
    if not 43 <= length <= 128:
        raise ValueError("a PKCE code verifier has 43 to 128 characters")
    verifier = secrets.token_urlsafe(96)[:length]
    return PKCEPair(code_verifier=verifier, code_challenge=code_challenge(verifier))


def authorization_url(
    base_url: str,
    *,
    client_id: str,
    redirect_uri: str,
    scopes: Sequence[str] | str = (),
    state: str | None = None,
    pkce: PKCEPair | None = None,
) -> AuthorizationRequest:
    """Build the ``GET {base_url}/auth/authorize`` URL (response_type=code, PKCE S256)."""
    pkce = pkce or generate_pkce()
    state = state or secrets.token_urlsafe(24)
    scope = scopes if isinstance(scopes, str) else " ".join(scopes)
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "state": state,
        "code_challenge": pkce.code_challenge,
        "code_challenge_method": pkce.code_challenge_method,
    }
    if scope:
        query["scope"] = scope
    url = base_url.rstrip("/") + "/auth/authorize?" + urlencode(query)
    return AuthorizationRequest(
        url=url, state=state, code_verifier=pkce.code_verifier, redirect_uri=redirect_uri, client_id=client_id
    )
