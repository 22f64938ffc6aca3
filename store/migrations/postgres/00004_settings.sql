-- Instance settings: named JSON documents (the SAML configuration, the
-- service provider's own key). Keep in step with ../sqlite/00004_settings.sql.

-- +goose Up
CREATE TABLE settings (
    name       TEXT PRIMARY KEY,
    value      JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);

-- +goose Down
DROP TABLE settings;
