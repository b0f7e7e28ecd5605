-- The Evidence Ledger (written only by internal/ledger). Entries and Merkle tree hashes
-- are append-only: triggers refuse UPDATE and DELETE, so no code path can rewrite them.

CREATE TABLE ledger_entries (
    id         TEXT PRIMARY KEY,
    tenant_id  TEXT NOT NULL,
    project_id TEXT NOT NULL,
    tree_index BIGINT NOT NULL,
    event_type TEXT NOT NULL,
    claim_id   TEXT NOT NULL,
    run_id     TEXT NOT NULL,
    details    TEXT NOT NULL,
    actor      TEXT NOT NULL,
    ts         BIGINT NOT NULL,
    prev_hash  TEXT NOT NULL,
    hash       TEXT NOT NULL,
    UNIQUE (project_id, tree_index)
);
CREATE INDEX ledger_entries_claim ON ledger_entries (project_id, claim_id, tree_index);

-- Stored hashes of each project's tlog Merkle tree, addressed by tlog.StoredHashIndex.
CREATE TABLE ledger_tree_hashes (
    project_id TEXT NOT NULL,
    idx        BIGINT NOT NULL,
    hash       BLOB NOT NULL,
    PRIMARY KEY (project_id, idx)
);

-- One row per project: the tree size and the last entry hash. Appends lock this row,
-- which serialises them per project.
CREATE TABLE ledger_heads (
    project_id TEXT PRIMARY KEY,
    tenant_id  TEXT NOT NULL,
    size       BIGINT NOT NULL,
    last_hash  TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TRIGGER ledger_entries_no_update BEFORE UPDATE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TRIGGER ledger_entries_no_delete BEFORE DELETE ON ledger_entries
BEGIN SELECT RAISE(ABORT, 'ledger_entries is append-only'); END;
CREATE TRIGGER ledger_tree_hashes_no_update BEFORE UPDATE ON ledger_tree_hashes
BEGIN SELECT RAISE(ABORT, 'ledger_tree_hashes is append-only'); END;
CREATE TRIGGER ledger_tree_hashes_no_delete BEFORE DELETE ON ledger_tree_hashes
BEGIN SELECT RAISE(ABORT, 'ledger_tree_hashes is append-only'); END;
