package sqlstore

import (
	"context"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const projectCols = `id, name, description, mode, default_stickiness, feature_limit, created_at, updated_at`

func scanProject(r scanner) (store.Project, error) {
	var p store.Project
	var limit *int64
	err := r.Scan(&p.ID, &p.Name, &p.Description, &p.Mode, &p.DefaultStickiness, &limit,
		timeCol{&p.CreatedAt}, nullTimeCol{&p.UpdatedAt})
	if limit != nil {
		n := int(*limit)
		p.FeatureLimit = &n
	}
	return p, err
}

func projectSubject(id string) string { return fmt.Sprintf("project %q", id) }

func (t *tx) GetProject(ctx context.Context, id string) (store.Project, error) {
	p, err := scanProject(t.queryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ?`, id))
	return p, adapt(err, projectSubject(id), nil)
}

func (t *tx) ListProjects(ctx context.Context) ([]store.Project, error) {
	rows, err := t.query(ctx, `SELECT `+projectCols+` FROM projects ORDER BY id`)
	return collect(rows, err, scanProject)
}

func (t *tx) CreateProject(ctx context.Context, p store.Project) (store.Project, error) {
	if p.CreatedAt.IsZero() {
		p.CreatedAt = t.now()
	}
	if p.Mode == "" {
		p.Mode = "open"
	}
	if p.DefaultStickiness == "" {
		p.DefaultStickiness = "default"
	}
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO projects (`+projectCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			p.ID, p.Name, p.Description, p.Mode, p.DefaultStickiness, p.FeatureLimit, timeArg(p.CreatedAt), timePtrArg(p.UpdatedAt))
		return adapt(err, projectSubject(p.ID), nil)
	})
	if err != nil {
		return store.Project{}, err
	}
	return t.GetProject(ctx, p.ID)
}

func (t *tx) UpdateProject(ctx context.Context, p store.Project) (store.Project, error) {
	if p.UpdatedAt == nil {
		now := t.now()
		p.UpdatedAt = &now
	}
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE projects SET name = ?, description = ?, mode = ?, default_stickiness = ?,
			feature_limit = ?, updated_at = ? WHERE id = ?`,
			p.Name, p.Description, p.Mode, p.DefaultStickiness, p.FeatureLimit, timePtrArg(p.UpdatedAt), p.ID)
		return affected(res, err, projectSubject(p.ID), nil)
	})
	if err != nil {
		return store.Project{}, err
	}
	return t.GetProject(ctx, p.ID)
}

func (t *tx) DeleteProject(ctx context.Context, id string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM projects WHERE id = ?`, id)
		return affected(res, err, projectSubject(id),
			apierr.New(apierr.BadData, "project %q still has features; move or delete them first", id))
	})
}

func scanProjectEnvironment(r scanner) (store.ProjectEnvironment, error) {
	var pe store.ProjectEnvironment
	err := r.Scan(&pe.Project, &pe.Environment, jsonCol{&pe.DefaultStrategy})
	return pe, err
}

func (t *tx) ListProjectEnvironments(ctx context.Context, project string) ([]store.ProjectEnvironment, error) {
	if _, err := t.GetProject(ctx, project); err != nil {
		return nil, err
	}
	rows, err := t.query(ctx, `SELECT pe.project_id, pe.environment, pe.default_strategy
		FROM project_environments pe JOIN environments e ON e.name = pe.environment
		WHERE pe.project_id = ? ORDER BY e.sort_order, e.name`, project)
	return collect(rows, err, scanProjectEnvironment)
}

func projectEnvSubject(project, env string) string {
	return fmt.Sprintf("environment %q of project %q", env, project)
}

// defaultStrategyArg encodes an optional default strategy; nil stays NULL.
func defaultStrategyArg(s *store.StrategyTemplate) (any, error) {
	if s == nil {
		return nil, nil
	}
	v := *s
	v.Constraints, v.Variants, v.Segments = nonNil(v.Constraints), nonNil(v.Variants), nonNil(v.Segments)
	return jsonArg(v)
}

func (t *tx) CreateProjectEnvironment(ctx context.Context, pe store.ProjectEnvironment) error {
	ds, err := defaultStrategyArg(pe.DefaultStrategy)
	if err != nil {
		return apierr.Wrap(apierr.BadData, err, "default strategy cannot be stored")
	}
	return t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO project_environments (project_id, environment, default_strategy) VALUES (?, ?, ?)`,
			pe.Project, pe.Environment, ds)
		return adapt(err, projectEnvSubject(pe.Project, pe.Environment),
			apierr.New(apierr.NotFound, "project %q or environment %q not found", pe.Project, pe.Environment))
	})
}

func (t *tx) UpdateProjectEnvironment(ctx context.Context, pe store.ProjectEnvironment) error {
	ds, err := defaultStrategyArg(pe.DefaultStrategy)
	if err != nil {
		return apierr.Wrap(apierr.BadData, err, "default strategy cannot be stored")
	}
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE project_environments SET default_strategy = ? WHERE project_id = ? AND environment = ?`,
			ds, pe.Project, pe.Environment)
		return affected(res, err, projectEnvSubject(pe.Project, pe.Environment), nil)
	})
}

func (t *tx) DeleteProjectEnvironment(ctx context.Context, project, environment string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM project_environments WHERE project_id = ? AND environment = ?`, project, environment)
		return affected(res, err, projectEnvSubject(project, environment), nil)
	})
}
