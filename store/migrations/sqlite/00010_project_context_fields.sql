-- A context field may belong to one project (Unleash's project context
-- fields); NULL is a global field. Names stay unique across both kinds, so
-- a constraint's contextName names one field. Deleting a project deletes
-- its fields. Keep in step with ../postgres/00010_project_context_fields.sql.

-- +goose Up
ALTER TABLE context_fields ADD COLUMN project TEXT REFERENCES projects (id) ON DELETE CASCADE;
CREATE INDEX context_fields_project ON context_fields (project);

-- +goose Down
DROP INDEX context_fields_project;
ALTER TABLE context_fields DROP COLUMN project;
