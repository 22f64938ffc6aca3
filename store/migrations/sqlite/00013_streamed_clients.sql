-- SDK instances that held a stream (GET /api/client/streaming) within the
-- last day, so that any server of the cluster, restarted or not, asks
-- exactly these SDKs back onto the stream when they poll. Rows are
-- operational: written in batches, expired after a day, bounded per token
-- and per application; no foreign key to the token, as rows expire anyway.
-- Keep in step with ../postgres/00013_streamed_clients.sql.

-- +goose Up
CREATE TABLE streamed_clients (
    client_key TEXT NOT NULL PRIMARY KEY,
    token_id   INTEGER NOT NULL,
    app_name   TEXT NOT NULL DEFAULT '',
    seen_at    TIMESTAMP NOT NULL
);
CREATE INDEX streamed_clients_seen ON streamed_clients (seen_at);
CREATE INDEX streamed_clients_token ON streamed_clients (token_id, seen_at);
CREATE INDEX streamed_clients_app ON streamed_clients (app_name, seen_at);

-- +goose Down
DROP TABLE streamed_clients;
