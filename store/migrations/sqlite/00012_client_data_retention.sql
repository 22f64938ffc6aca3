-- Client data retention. Hourly metrics older than the retention are
-- rolled up into daily totals before they are deleted; stale instances and
-- the applications that SDK registrations created and that have no
-- instance left are deleted. created_by_sdk tells those applications from
-- the ones created through the admin API: existing applications count as
-- the SDKs' unless an application-created event names them. Keep in step
-- with ../postgres/00012_client_data_retention.sql.

-- +goose Up
ALTER TABLE client_applications ADD COLUMN created_by_sdk BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE client_applications SET created_by_sdk = TRUE WHERE app_name NOT IN (
    SELECT json_extract(data, '$.appName') FROM events
    WHERE type = 'application-created' AND json_valid(data) AND json_extract(data, '$.appName') IS NOT NULL);
CREATE INDEX client_instances_last_seen ON client_instances (last_seen);

CREATE TABLE client_metrics_daily (
    feature_name TEXT NOT NULL,
    app_name     TEXT NOT NULL,
    environment  TEXT NOT NULL,
    day_start    TIMESTAMP NOT NULL,
    yes_count    INTEGER NOT NULL DEFAULT 0,
    no_count     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (feature_name, app_name, environment, day_start)
);
CREATE INDEX client_metrics_daily_day ON client_metrics_daily (day_start);

CREATE TABLE client_metrics_daily_variants (
    feature_name TEXT NOT NULL,
    app_name     TEXT NOT NULL,
    environment  TEXT NOT NULL,
    day_start    TIMESTAMP NOT NULL,
    variant      TEXT NOT NULL,
    hits         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (feature_name, app_name, environment, day_start, variant)
);
CREATE INDEX client_metrics_daily_variants_day ON client_metrics_daily_variants (day_start);

-- +goose Down
DROP TABLE client_metrics_daily_variants;
DROP TABLE client_metrics_daily;
DROP INDEX client_instances_last_seen;
ALTER TABLE client_applications DROP COLUMN created_by_sdk;
