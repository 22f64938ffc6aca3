-- Initial schema and seed data for SQLite. Keep in step with
-- ../postgres/00001_initial.sql: same tables, columns and seed rows.
-- JSON is stored as TEXT and never queried in SQL. Time columns are declared
-- TIMESTAMP so that the driver scans them into time.Time.

-- +goose Up
CREATE TABLE projects (
    id                 TEXT PRIMARY KEY,
    name               TEXT NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    mode               TEXT NOT NULL DEFAULT 'open',
    default_stickiness TEXT NOT NULL DEFAULT 'default',
    feature_limit      INTEGER,
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP
);

CREATE TABLE environments (
    name       TEXT PRIMARY KEY,
    type       TEXT NOT NULL,
    enabled    BOOLEAN NOT NULL DEFAULT TRUE,
    sort_order INTEGER NOT NULL DEFAULT 0,
    protected  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL
);

CREATE TABLE project_environments (
    project_id       TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    environment      TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
    default_strategy TEXT,
    PRIMARY KEY (project_id, environment)
);
CREATE INDEX project_environments_environment ON project_environments (environment);

CREATE TABLE feature_types (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL DEFAULT '',
    lifetime_days INTEGER
);

CREATE TABLE features (
    name            TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects (id),
    type            TEXT NOT NULL REFERENCES feature_types (id),
    description     TEXT NOT NULL DEFAULT '',
    stale           BOOLEAN NOT NULL DEFAULT FALSE,
    impression_data BOOLEAN NOT NULL DEFAULT FALSE,
    created_at      TIMESTAMP NOT NULL,
    created_by      TEXT NOT NULL DEFAULT '',
    archived_at     TIMESTAMP,
    last_seen_at    TIMESTAMP
);
CREATE INDEX features_project ON features (project_id);
CREATE INDEX features_type ON features (type);

CREATE TABLE feature_environments (
    feature_name TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
    environment  TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
    enabled      BOOLEAN NOT NULL DEFAULT FALSE,
    variants     TEXT NOT NULL DEFAULT '[]',
    last_seen_at TIMESTAMP,
    PRIMARY KEY (feature_name, environment)
);
CREATE INDEX feature_environments_environment ON feature_environments (environment);

CREATE TABLE strategy_definitions (
    name        TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    parameters  TEXT NOT NULL DEFAULT '[]',
    editable    BOOLEAN NOT NULL DEFAULT TRUE,
    deprecated  BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  TIMESTAMP NOT NULL
);

-- Strategies name their type without a foreign key: SDKs may evaluate
-- custom types the server has no definition for.
CREATE TABLE strategies (
    id           TEXT PRIMARY KEY,
    feature_name TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
    environment  TEXT NOT NULL REFERENCES environments (name) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    title        TEXT NOT NULL DEFAULT '',
    disabled     BOOLEAN NOT NULL DEFAULT FALSE,
    sort_order   INTEGER NOT NULL DEFAULT 0,
    parameters   TEXT NOT NULL DEFAULT '{}',
    constraints  TEXT NOT NULL DEFAULT '[]',
    variants     TEXT NOT NULL DEFAULT '[]',
    created_at   TIMESTAMP NOT NULL
);
CREATE INDEX strategies_feature_environment ON strategies (feature_name, environment, sort_order);
CREATE INDEX strategies_environment ON strategies (environment);

CREATE TABLE segments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    project_id  TEXT REFERENCES projects (id) ON DELETE CASCADE,
    constraints TEXT NOT NULL DEFAULT '[]',
    created_at  TIMESTAMP NOT NULL,
    created_by  TEXT NOT NULL DEFAULT ''
);

-- No ON DELETE on segment_id: a segment in use cannot be deleted.
CREATE TABLE strategy_segments (
    strategy_id TEXT NOT NULL REFERENCES strategies (id) ON DELETE CASCADE,
    segment_id  INTEGER NOT NULL REFERENCES segments (id),
    PRIMARY KEY (strategy_id, segment_id)
);
CREATE INDEX strategy_segments_segment ON strategy_segments (segment_id);

CREATE TABLE context_fields (
    name         TEXT PRIMARY KEY,
    description  TEXT NOT NULL DEFAULT '',
    legal_values TEXT NOT NULL DEFAULT '[]',
    stickiness   BOOLEAN NOT NULL DEFAULT FALSE,
    sort_order   INTEGER NOT NULL DEFAULT 10,
    created_at   TIMESTAMP NOT NULL
);

CREATE TABLE tag_types (
    name        TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    icon        TEXT NOT NULL DEFAULT ''
);

CREATE TABLE feature_tags (
    feature_name TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
    tag_type     TEXT NOT NULL REFERENCES tag_types (name) ON DELETE CASCADE,
    tag_value    TEXT NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (feature_name, tag_type, tag_value)
);
CREATE INDEX feature_tags_tag ON feature_tags (tag_type, tag_value);

CREATE TABLE feature_dependencies (
    child    TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
    parent   TEXT NOT NULL REFERENCES features (name) ON DELETE CASCADE,
    enabled  BOOLEAN NOT NULL DEFAULT TRUE,
    variants TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (child, parent),
    CHECK (child <> parent)
);
CREATE INDEX feature_dependencies_parent ON feature_dependencies (parent);

CREATE TABLE roles (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    type        TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT ''
);

CREATE TABLE users (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT NOT NULL DEFAULT '',
    email          TEXT,
    username       TEXT,
    password_hash  TEXT NOT NULL DEFAULT '',
    root_role      INTEGER NOT NULL REFERENCES roles (id),
    login_attempts INTEGER NOT NULL DEFAULT 0,
    seen_at        TIMESTAMP,
    created_at     TIMESTAMP NOT NULL,
    email_sent     BOOLEAN NOT NULL DEFAULT FALSE,
    image_url      TEXT NOT NULL DEFAULT '',
    account_type   TEXT NOT NULL DEFAULT 'User',
    deleted_at     TIMESTAMP
);
-- Deleted users keep their row for the audit log but free their login.
CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX users_username ON users (lower(username)) WHERE deleted_at IS NULL;

CREATE TABLE api_tokens (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    secret_hash TEXT NOT NULL UNIQUE,
    prefix      TEXT NOT NULL DEFAULT '',
    token_name  TEXT NOT NULL,
    type        TEXT NOT NULL,
    projects    TEXT NOT NULL DEFAULT '[]',
    environment TEXT NOT NULL DEFAULT '',
    user_id     INTEGER REFERENCES users (id) ON DELETE CASCADE,
    expires_at  TIMESTAMP,
    created_at  TIMESTAMP NOT NULL,
    seen_at     TIMESTAMP
);
CREATE INDEX api_tokens_user ON api_tokens (user_id);

CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL,
    expires_at TIMESTAMP NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- AUTOINCREMENT: ids are never reused, so the newest id is a revision
-- number. No foreign keys: the log outlives what it describes.
CREATE TABLE events (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    type               TEXT NOT NULL,
    created_at         TIMESTAMP NOT NULL,
    created_by         TEXT NOT NULL,
    created_by_user_id INTEGER,
    project            TEXT,
    environment        TEXT,
    feature_name       TEXT,
    data               TEXT,
    pre_data           TEXT,
    tags               TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX events_type ON events (type);
CREATE INDEX events_project ON events (project);
CREATE INDEX events_feature_name ON events (feature_name);

CREATE TABLE client_applications (
    app_name    TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    url         TEXT NOT NULL DEFAULT '',
    color       TEXT NOT NULL DEFAULT '',
    icon        TEXT NOT NULL DEFAULT '',
    strategies  TEXT NOT NULL DEFAULT '[]',
    created_at  TIMESTAMP NOT NULL,
    seen_at     TIMESTAMP
);

CREATE TABLE client_instances (
    app_name    TEXT NOT NULL REFERENCES client_applications (app_name) ON DELETE CASCADE,
    instance_id TEXT NOT NULL,
    environment TEXT NOT NULL DEFAULT '',
    sdk_version TEXT NOT NULL DEFAULT '',
    client_ip   TEXT NOT NULL DEFAULT '',
    started     TIMESTAMP,
    interval_ms INTEGER NOT NULL DEFAULT 0,
    created_at  TIMESTAMP NOT NULL,
    last_seen   TIMESTAMP NOT NULL,
    PRIMARY KEY (app_name, instance_id, environment)
);

-- Metrics name features without a foreign key: SDKs report unknown names.
CREATE TABLE client_metrics (
    feature_name TEXT NOT NULL,
    app_name     TEXT NOT NULL,
    environment  TEXT NOT NULL,
    hour_start   TIMESTAMP NOT NULL,
    yes_count    INTEGER NOT NULL DEFAULT 0,
    no_count     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (feature_name, app_name, environment, hour_start)
);
CREATE INDEX client_metrics_hour ON client_metrics (hour_start);

CREATE TABLE client_metrics_variants (
    feature_name TEXT NOT NULL,
    app_name     TEXT NOT NULL,
    environment  TEXT NOT NULL,
    hour_start   TIMESTAMP NOT NULL,
    variant      TEXT NOT NULL,
    hits         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (feature_name, app_name, environment, hour_start, variant)
);
CREATE INDEX client_metrics_variants_hour ON client_metrics_variants (hour_start);

-- Seed data.
INSERT INTO projects (id, name, description, created_at)
VALUES ('default', 'Default', 'The project new flags go to unless another is chosen.', CURRENT_TIMESTAMP);

INSERT INTO environments (name, type, enabled, sort_order, protected, created_at) VALUES
    ('development', 'development', TRUE, 100, FALSE, CURRENT_TIMESTAMP),
    ('production', 'production', TRUE, 200, FALSE, CURRENT_TIMESTAMP);

INSERT INTO project_environments (project_id, environment) VALUES
    ('default', 'development'),
    ('default', 'production');

INSERT INTO feature_types (id, name, description, lifetime_days) VALUES
    ('release', 'Release', 'Ships unfinished work to production behind a switch, for trunk-based development.', 40),
    ('experiment', 'Experiment', 'Compares versions of a feature, as in A/B or multivariate tests.', 40),
    ('operational', 'Operational', 'Controls how a change rolls out, such as a migration, and is removed soon after.', 7),
    ('kill-switch', 'Kill switch', 'Turns off a non-critical part of the system when it misbehaves or under load.', NULL),
    ('permission', 'Permission', 'Gives some users access to a feature, such as beta or premium functionality.', NULL);

INSERT INTO tag_types (name, description, icon)
VALUES ('simple', 'A free-form label used to group and filter flags.', '#');

INSERT INTO roles (id, name, type, description) VALUES
    (1, 'Admin', 'root', 'Can do everything, including managing users and settings.'),
    (2, 'Editor', 'root', 'Can create and change flags in every project, and create projects.'),
    (3, 'Viewer', 'root', 'Can read everything and change nothing.'),
    (4, 'Owner', 'project', 'Can manage a project, its flags and its members.'),
    (5, 'Member', 'project', 'Can create and change the flags of a project.');

INSERT INTO context_fields (name, description, sort_order, stickiness, created_at) VALUES
    ('environment', 'The environment the application runs in.', 0, FALSE, CURRENT_TIMESTAMP),
    ('userId', 'An identifier of the signed-in user.', 1, FALSE, CURRENT_TIMESTAMP),
    ('appName', 'The name of the application.', 2, FALSE, CURRENT_TIMESTAMP);

INSERT INTO strategy_definitions (name, title, description, parameters, editable, deprecated, created_at) VALUES
    ('default', 'Standard', 'On for everyone.', '[]', FALSE, FALSE, CURRENT_TIMESTAMP),
    ('userWithId', 'User IDs', 'On for the listed user ids.',
     '[{"name":"userIds","type":"list","description":"","required":false}]', FALSE, FALSE, CURRENT_TIMESTAMP),
    ('gradualRolloutUserId', 'Gradual rollout by user id', 'On for a stable percentage of signed-in users.',
     '[{"name":"percentage","type":"percentage","description":"","required":false},{"name":"groupId","type":"string","description":"Users with the same group id get the same answer for every flag of the group.","required":true}]',
     FALSE, TRUE, CURRENT_TIMESTAMP),
    ('gradualRolloutSessionId', 'Gradual rollout by session id', 'On for a stable percentage of sessions.',
     '[{"name":"percentage","type":"percentage","description":"","required":false},{"name":"groupId","type":"string","description":"Sessions with the same group id get the same answer for every flag of the group.","required":true}]',
     FALSE, TRUE, CURRENT_TIMESTAMP),
    ('gradualRolloutRandom', 'Random rollout', 'On for a random percentage of evaluations.',
     '[{"name":"percentage","type":"percentage","description":"","required":false}]', FALSE, TRUE, CURRENT_TIMESTAMP),
    ('flexibleRollout', 'Gradual rollout', 'On for a percentage of users, sessions or random evaluations, chosen by stickiness.',
     '[{"name":"rollout","type":"percentage","description":"","required":false},{"name":"stickiness","type":"string","description":"Which context field keeps the answer stable: default, userId, sessionId, random or a custom field.","required":true},{"name":"groupId","type":"string","description":"Contexts with the same group id get the same answer for every flag of the group.","required":true}]',
     FALSE, FALSE, CURRENT_TIMESTAMP),
    ('remoteAddress', 'IPs', 'On for the listed IP addresses and CIDR ranges.',
     '[{"name":"IPs","type":"list","description":"","required":true}]', FALSE, FALSE, CURRENT_TIMESTAMP),
    ('applicationHostname', 'Hosts', 'On for the listed host names.',
     '[{"name":"hostNames","type":"list","description":"","required":false}]', FALSE, FALSE, CURRENT_TIMESTAMP);

-- +goose Down
DROP TABLE client_metrics_variants;
DROP TABLE client_metrics;
DROP TABLE client_instances;
DROP TABLE client_applications;
DROP TABLE events;
DROP TABLE sessions;
DROP TABLE api_tokens;
DROP TABLE users;
DROP TABLE roles;
DROP TABLE feature_dependencies;
DROP TABLE feature_tags;
DROP TABLE tag_types;
DROP TABLE context_fields;
DROP TABLE strategy_segments;
DROP TABLE segments;
DROP TABLE strategies;
DROP TABLE strategy_definitions;
DROP TABLE feature_environments;
DROP TABLE features;
DROP TABLE feature_types;
DROP TABLE project_environments;
DROP TABLE environments;
DROP TABLE projects;
