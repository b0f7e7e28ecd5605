"""OAuth helper: PKCE, authorization URL, code exchange and automatic refresh."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

import disco
from disco import oauth
from helpers import BASE, PROJECT, body_json, client, error


def test_pkce_rfc7636_vector() -> None:
    assert oauth.code_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_generated_pkce() -> None:
    p = oauth.generate_pkce()
    assert 43 <= len(p.code_verifier) <= 128
    assert all(ch.isalnum() or ch in "-._~" for ch in p.code_verifier)
    assert p.code_challenge == oauth.code_challenge(p.code_verifier)
    assert p.code_challenge_method == "S256"
    assert oauth.generate_pkce().code_verifier != p.code_verifier
    with pytest.raises(ValueError):
        oauth.generate_pkce(10)


def test_authorization_url() -> None:
    req = oauth.authorization_url(BASE, client_id="cli_x", redirect_uri="http://127.0.0.1:9/cb", scopes=["projects:read", "claims:read"])
    u = urlparse(req.url)
    assert f"{u.scheme}://{u.netloc}{u.path}" == BASE + "/auth/authorize"
    q = {k: v[0] for k, v in parse_qs(u.query).items()}
    assert q["response_type"] == "code" and q["client_id"] == "cli_x"
    assert q["redirect_uri"] == "http://127.0.0.1:9/cb"
    assert q["scope"] == "projects:read claims:read"
    assert q["code_challenge_method"] == "S256"
    assert q["code_challenge"] == oauth.code_challenge(req.code_verifier)
    assert q["state"] == req.state and len(req.state) >= 16


def token(n: int, expires_in: int = 86400) -> dict[str, object]:
    return {
        "access_token": f"disco_session_{n}",
        "token_type": "Bearer",
        "expires_in": expires_in,
        "refresh_token": f"disco_refresh_{n}",
        "scope": "projects:read projects:write",
        "tenant_id": "ten_x",
    }


class AuthServer:
    def __init__(self, first_expires_in: int = 86400) -> None:
        self.n = 0
        self.first_expires_in = first_expires_in
        self.valid: set[str] = set()
        self.token_bodies: list[dict[str, object]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/auth/token"):
            assert "Authorization" not in request.headers
            b = body_json(request)
            self.token_bodies.append(b)
            if b["grant_type"] == "refresh_token" and b["refresh_token"] != f"disco_refresh_{self.n}":
                return httpx.Response(400, json={"error": "invalid_grant", "error_description": "reused"})
            self.n += 1
            self.valid = {f"disco_session_{self.n}"}
            return httpx.Response(200, json=token(self.n, self.first_expires_in if self.n == 1 else 86400))
        auth = request.headers.get("Authorization", "")
        if auth.removeprefix("Bearer ") not in self.valid:
            return error(401, "unauthenticated", reason="expired")
        return httpx.Response(200, json=PROJECT)


def test_code_exchange_then_authenticated_call() -> None:
    srv = AuthServer()
    seen: list[disco.TokenResponse] = []
    c, rec = client(srv, api_key=None, client_id="cli_x", on_token_refresh=seen.append)
    tok = c.oauth.exchange_code("the-code", redirect_uri="http://127.0.0.1:9/cb", code_verifier="v" * 43)
    assert tok.access_token == "disco_session_1" and tok.scopes == ["projects:read", "projects:write"]
    assert srv.token_bodies[0] == {
        "grant_type": "authorization_code",
        "code": "the-code",
        "redirect_uri": "http://127.0.0.1:9/cb",
        "client_id": "cli_x",
        "code_verifier": "v" * 43,
    }
    c.projects.get(PROJECT["id"])
    assert rec.requests[-1].headers["Authorization"] == "Bearer disco_session_1"
    assert [t.access_token for t in seen] == ["disco_session_1"]


def test_refresh_on_401_rotates_refresh_token() -> None:
    srv = AuthServer()
    c, rec = client(srv, api_key=None, client_id="cli_x")
    c.oauth.exchange_code("code", redirect_uri="http://x/cb", code_verifier="v" * 43)
    srv.valid = set()  # the server forgets the session: next call gets 401
    c.projects.get(PROJECT["id"])
    assert srv.token_bodies[1] == {"grant_type": "refresh_token", "refresh_token": "disco_refresh_1", "client_id": "cli_x"}
    assert c.token is not None and c.token.refresh_token == "disco_refresh_2"
    srv.valid = set()
    c.projects.get(PROJECT["id"])
    # the rotated token was used, not the first one
    assert srv.token_bodies[2]["refresh_token"] == "disco_refresh_2"
    assert rec.requests[-1].headers["Authorization"] == "Bearer disco_session_3"


def test_proactive_refresh_before_expiry() -> None:
    srv = AuthServer(first_expires_in=30)  # within the 60 s refresh skew
    c, rec = client(srv, api_key=None, client_id="cli_x")
    c.oauth.exchange_code("code", redirect_uri="http://x/cb", code_verifier="v" * 43)
    c.projects.get(PROJECT["id"])
    assert len(srv.token_bodies) == 2
    assert rec.requests[-1].headers["Authorization"] == "Bearer disco_session_2"
    assert c.token is not None and c.token.expires_at is not None and c.token.expires_at > time.time() + 3600


def test_token_from_saved_response() -> None:
    srv = AuthServer()
    srv.n = 1
    srv.valid = {"disco_session_1"}
    c, rec = client(srv, api_key=None, token=token(1), client_id="cli_x")
    c.projects.get(PROJECT["id"])
    assert rec.requests[0].headers["Authorization"] == "Bearer disco_session_1"


def test_401_without_refresh_token_raises() -> None:
    c, rec = client(lambda r: error(401, "unauthenticated", reason="invalid"))
    with pytest.raises(disco.AuthenticationError) as ei:
        c.projects.get("proj_x")
    assert ei.value.details == {"reason": "invalid"}
    assert len(rec.requests) == 1


def test_code_exchange_is_not_retried_on_5xx() -> None:
    c, rec = client(lambda r: error(500, "internal_error"), api_key=None, client_id="cli_x")
    with pytest.raises(disco.InternalServerError):
        c.oauth.exchange_code("code", redirect_uri="http://x/cb", code_verifier="v" * 43)
    assert len(rec.requests) == 1
