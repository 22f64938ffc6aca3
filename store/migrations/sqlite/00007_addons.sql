-- Addons (integrations such as webhooks) and the queue of their
-- deliveries. addon_cursor is the newest event whose deliveries were
-- queued: it starts at the newest event, so that history is not sent.
-- Keep in step with ../postgres/00007_addons.sql.

-- +goose Up
CREATE TABLE addons (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    provider       TEXT NOT NULL,
    description    TEXT NOT NULL DEFAULT '',
    enabled        BOOLEAN NOT NULL,
    parameters     TEXT NOT NULL DEFAULT '{}',
    events         TEXT NOT NULL DEFAULT '[]',
    projects       TEXT NOT NULL DEFAULT '[]',
    environments   TEXT NOT NULL DEFAULT '[]',
    since_event_id BIGINT NOT NULL DEFAULT 0,
    created_at     TIMESTAMP NOT NULL
);

CREATE TABLE addon_deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    addon_id        INTEGER NOT NULL REFERENCES addons (id) ON DELETE CASCADE,
    event_id        BIGINT NOT NULL,
    state           TEXT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    status_code     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    next_attempt_at TIMESTAMP NOT NULL,
    claimed_until   TIMESTAMP,
    created_at      TIMESTAMP NOT NULL,
    updated_at      TIMESTAMP NOT NULL,
    UNIQUE (addon_id, event_id)
);
CREATE INDEX addon_deliveries_due ON addon_deliveries (state, next_attempt_at);

CREATE TABLE addon_cursor (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    last_event_id BIGINT NOT NULL
);
INSERT INTO addon_cursor (id, last_event_id) SELECT 1, COALESCE(MAX(id), 0) FROM events;

-- +goose Down
DROP TABLE addon_cursor;
DROP TABLE addon_deliveries;
DROP TABLE addons;
