-- Instance settings: named JSON documents (the SAML configuration, the
-- service provider's own key). Keep in step with ../postgres/00004_settings.sql.

-- +goose Up
CREATE TABLE settings (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL
);

-- +goose Down
DROP TABLE settings;
