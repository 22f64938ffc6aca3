-- One-time ids that were used, such as those of SAML assertions and
-- authentication requests, kept until they expire so that none is
-- accepted twice, by any instance sharing the database. Keep in step with
-- ../sqlite/00005_used_ids.sql.

-- +goose Up
CREATE TABLE used_ids (
    id         TEXT PRIMARY KEY,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX used_ids_expires ON used_ids (expires_at);

-- +goose Down
DROP TABLE used_ids;
