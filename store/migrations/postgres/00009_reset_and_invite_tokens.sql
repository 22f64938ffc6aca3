-- Password reset links and invite links (public sign-up tokens).
-- A reset link's token is kept only as its SHA-256 (like API tokens): the
-- link itself is shown once, to the admin who made it. An invite link's
-- secret is kept as is, because admins list and share it again, as in
-- Unleash. Keep in step with ../sqlite/00009_reset_and_invite_tokens.sql.

-- +goose Up
CREATE TABLE reset_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_by TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
-- One link per user: a new one replaces the last.
CREATE UNIQUE INDEX reset_tokens_user ON reset_tokens (user_id);

CREATE TABLE signup_tokens (
    secret     TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    role_id    INTEGER NOT NULL REFERENCES roles (id),
    enabled    BOOLEAN NOT NULL,
    created_by TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX signup_tokens_created ON signup_tokens (created_at);

-- Who joined through which invite link.
CREATE TABLE signup_token_users (
    secret     TEXT NOT NULL REFERENCES signup_tokens (secret) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (secret, user_id)
);
CREATE INDEX signup_token_users_user ON signup_token_users (user_id);

-- +goose Down
DROP TABLE signup_token_users;
DROP TABLE signup_tokens;
DROP TABLE reset_tokens;
