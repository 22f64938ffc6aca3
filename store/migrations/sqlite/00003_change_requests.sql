-- Change requests. Keep in step with ../postgres/00003_change_requests.sql.
-- Actors are stored as a key (user:<id> or token:<id>, compared by the
-- server's rules), a display name and an optional user id, without foreign
-- keys: the record outlives users and tokens.

-- +goose Up
CREATE TABLE change_request_settings (
    project_id         TEXT NOT NULL,
    environment        TEXT NOT NULL,
    enabled            BOOLEAN NOT NULL DEFAULT FALSE,
    required_approvals INTEGER NOT NULL DEFAULT 1 CHECK (required_approvals >= 1),
    PRIMARY KEY (project_id, environment),
    FOREIGN KEY (project_id, environment)
        REFERENCES project_environments (project_id, environment) ON DELETE CASCADE
);

CREATE TABLE change_requests (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id         TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    environment        TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
    title              TEXT NOT NULL DEFAULT '',
    state              TEXT NOT NULL,
    min_approvals      INTEGER NOT NULL DEFAULT 1,
    created_by_key     TEXT NOT NULL,
    created_by         TEXT NOT NULL,
    created_by_user_id INTEGER,
    created_at         TIMESTAMP NOT NULL,
    scheduled_at       TIMESTAMP,
    schedule_status    TEXT,
    failure_reason     TEXT
);
CREATE INDEX change_requests_project ON change_requests (project_id, environment);
CREATE INDEX change_requests_state ON change_requests (state, scheduled_at);

-- Changes name their flag without a foreign key: a change to a flag that
-- was deleted since stays visible, marked as a conflict.
CREATE TABLE change_request_changes (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    change_request_id  INTEGER NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
    feature_name       TEXT,
    action             TEXT NOT NULL,
    payload            TEXT,
    snapshot           TEXT,
    created_by_key     TEXT NOT NULL,
    created_by         TEXT NOT NULL,
    created_by_user_id INTEGER,
    created_at         TIMESTAMP NOT NULL
);
CREATE INDEX change_request_changes_request ON change_request_changes (change_request_id);
CREATE INDEX change_request_changes_feature ON change_request_changes (feature_name);

CREATE TABLE change_request_reviews (
    change_request_id  INTEGER NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
    kind               TEXT NOT NULL CHECK (kind IN ('approval', 'rejection')),
    created_by_key     TEXT NOT NULL,
    created_by         TEXT NOT NULL,
    created_by_user_id INTEGER,
    created_at         TIMESTAMP NOT NULL,
    PRIMARY KEY (change_request_id, kind, created_by_key)
);

CREATE TABLE change_request_comments (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    change_request_id  INTEGER NOT NULL REFERENCES change_requests (id) ON DELETE CASCADE,
    text               TEXT NOT NULL,
    created_by_key     TEXT NOT NULL,
    created_by         TEXT NOT NULL,
    created_by_user_id INTEGER,
    created_at         TIMESTAMP NOT NULL
);
CREATE INDEX change_request_comments_request ON change_request_comments (change_request_id);

-- +goose Down
DROP TABLE change_request_comments;
DROP TABLE change_request_reviews;
DROP TABLE change_request_changes;
DROP TABLE change_requests;
DROP TABLE change_request_settings;
