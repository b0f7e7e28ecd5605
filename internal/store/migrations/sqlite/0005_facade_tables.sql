-- Tables the REST facade used to create itself when it started (issue 16: every SQL
-- table is created by the store's versioned migrations): its settings (the cursor
-- signing key and the OAuth HMAC secret, the same on every replica) and the OAuth
-- clients and token signatures of apiserver/oauth. The definitions are the ones the
-- facade created, with IF NOT EXISTS, so a database where it already made them
-- migrates to this version unchanged, rows included.
CREATE TABLE IF NOT EXISTS apiserver_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS oauth_clients (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL,
    name          TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    public        INTEGER NOT NULL,
    secret_hash   TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_clients_tenant ON oauth_clients (tenant_id, created_at, id);
CREATE TABLE IF NOT EXISTS oauth_tokens (
    signature  TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    request_id TEXT NOT NULL,
    active     INTEGER NOT NULL,
    client_id  TEXT NOT NULL,
    subject    TEXT NOT NULL,
    data       TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS oauth_tokens_request ON oauth_tokens (kind, request_id);
CREATE INDEX IF NOT EXISTS oauth_tokens_expiry ON oauth_tokens (expires_at);
