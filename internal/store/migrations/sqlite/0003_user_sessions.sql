-- Sign-in hardening (issue 17): users can be disabled, a user's sessions can be revoked
-- at once, and failed sign-ins are counted per account so guessing backs off.

-- disabled_at: the user cannot sign in, and no session of theirs is accepted.
-- sessions_revoked_at: sessions signed in before this time are no longer accepted.
ALTER TABLE users ADD COLUMN disabled_at BIGINT;
ALTER TABLE users ADD COLUMN sessions_revoked_at BIGINT;

-- One row per (tenant, username) that failed to sign in, keyed by the SHA-256 of the
-- pair so mistyped passwords entered as usernames are not stored. Unknown usernames get
-- rows too: the throttle must not tell existing accounts from missing ones.
CREATE TABLE login_throttle (
    id              TEXT PRIMARY KEY,
    failures        INTEGER NOT NULL,
    locked_until    BIGINT,
    last_failure_at BIGINT NOT NULL
);
CREATE INDEX login_throttle_last_failure ON login_throttle (last_failure_at);
