-- Idempotency records are bound to the principal that caused them (issue 17): a stored
-- response is replayed only to the same credential with the same scopes and projects,
-- and the same Idempotency-Key sent by another principal is another record.
--
-- Records written before this migration name no principal, so none of them could be
-- replayed safely; they are dropped rather than carried over (they live 24 hours).
DROP TABLE idempotency;
CREATE TABLE idempotency (
    tenant_id        TEXT NOT NULL,
    principal        TEXT NOT NULL,
    key              TEXT NOT NULL,
    method           TEXT NOT NULL,
    path             TEXT NOT NULL,
    body_sha256      TEXT NOT NULL,
    status           INTEGER NOT NULL,
    response_headers TEXT NOT NULL,
    response         BYTEA NOT NULL,
    created_at       BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, principal, key)
);
CREATE INDEX idempotency_created ON idempotency (created_at);
