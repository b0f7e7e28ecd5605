-- Every attempt of a webhook delivery (issue 15: the signatures of past delivery
-- attempts), so a receiver's operator can check what their endpoint got: when it was
-- sent, how it was answered, and the signature headers it carried (the headers only;
-- the signing secret stays in webhooks.secret). The store keeps the last 20 attempts
-- of each delivery; the rows go with their delivery.
CREATE TABLE webhook_attempts (
    delivery_id        TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt            INTEGER NOT NULL,
    tenant_id          TEXT NOT NULL,
    sent_at            BIGINT NOT NULL,
    duration_ms        BIGINT NOT NULL,
    status_code        INTEGER,
    error              TEXT NOT NULL DEFAULT '',
    signature          TEXT NOT NULL,
    signature_id       TEXT NOT NULL,
    signature_time     TEXT NOT NULL,
    standard_signature TEXT NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);
