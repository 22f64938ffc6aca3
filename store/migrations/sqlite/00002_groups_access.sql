-- User groups and project access: who holds which project role where.
-- Keep in step with ../postgres/00002_groups_access.sql.
--
-- Users are deleted softly (their row stays for the audit log), so rows that
-- refer to a deleted user stay too; the store leaves them out when reading.

-- +goose Up
CREATE TABLE user_groups (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    name         TEXT NOT NULL UNIQUE,
    description  TEXT NOT NULL DEFAULT '',
    mappings_sso TEXT NOT NULL DEFAULT '[]',
    root_role    INTEGER REFERENCES roles (id),
    created_by   TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMP NOT NULL
);

CREATE TABLE group_members (
    group_id   INTEGER NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_by TEXT NOT NULL DEFAULT '',
    joined_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (group_id, user_id)
);
CREATE INDEX group_members_user ON group_members (user_id);

CREATE TABLE project_user_roles (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role_id    INTEGER NOT NULL REFERENCES roles (id),
    created_by TEXT NOT NULL DEFAULT '',
    added_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (project_id, user_id, role_id)
);
CREATE INDEX project_user_roles_user ON project_user_roles (user_id);

CREATE TABLE project_group_roles (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    group_id   INTEGER NOT NULL REFERENCES user_groups (id) ON DELETE CASCADE,
    role_id    INTEGER NOT NULL REFERENCES roles (id),
    created_by TEXT NOT NULL DEFAULT '',
    added_at   TIMESTAMP NOT NULL,
    PRIMARY KEY (project_id, group_id, role_id)
);
CREATE INDEX project_group_roles_group ON project_group_roles (group_id);

-- +goose Down
DROP TABLE project_group_roles;
DROP TABLE project_user_roles;
DROP TABLE group_members;
DROP TABLE user_groups;
