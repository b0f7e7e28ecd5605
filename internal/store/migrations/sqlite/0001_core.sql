-- Users, API keys, idempotency records, webhook registrations and the webhook outbox.
-- Timestamps are Unix milliseconds (BIGINT); JSON values are TEXT.

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    BIGINT NOT NULL
);
CREATE INDEX users_tenant ON users (tenant_id);

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    tenant_id   TEXT NOT NULL,
    name        TEXT NOT NULL,
    hash        TEXT NOT NULL UNIQUE,
    prefix      TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    project_ids TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT,
    revoked_at  BIGINT,
    replaced_by TEXT,
    grace_until BIGINT
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at, id);

CREATE TABLE idempotency (
    tenant_id        TEXT NOT NULL,
    key              TEXT NOT NULL,
    method           TEXT NOT NULL,
    path             TEXT NOT NULL,
    body_sha256      TEXT NOT NULL,
    status           INTEGER NOT NULL,
    response_headers TEXT NOT NULL,
    response         BLOB NOT NULL,
    created_at       BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, key)
);
CREATE INDEX idempotency_created ON idempotency (created_at);

CREATE TABLE webhooks (
    id         TEXT PRIMARY KEY,
    tenant_id  TEXT NOT NULL,
    project_id TEXT NOT NULL,
    url        TEXT NOT NULL,
    events     TEXT NOT NULL,
    secret     TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX webhooks_tenant ON webhooks (tenant_id, created_at, id);
CREATE INDEX webhooks_project ON webhooks (tenant_id, project_id);

CREATE TABLE webhook_deliveries (
    id               TEXT PRIMARY KEY,
    webhook_id       TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    tenant_id        TEXT NOT NULL,
    event_id         TEXT NOT NULL,
    event_type       TEXT NOT NULL,
    payload          TEXT NOT NULL,
    attempt          INTEGER NOT NULL DEFAULT 0,
    status           TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'dead')),
    next_attempt_at  BIGINT NOT NULL,
    lease_until      BIGINT,
    last_status_code INTEGER,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at, id);
