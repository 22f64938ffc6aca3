package sqlstore

import (
	"context"
	"fmt"

	"github.com/signalbox/signalbox/store"
)

const environmentCols = `name, type, enabled, sort_order, protected, created_at`

func scanEnvironment(r scanner) (store.Environment, error) {
	var e store.Environment
	err := r.Scan(&e.Name, &e.Type, &e.Enabled, &e.SortOrder, &e.Protected, timeCol{&e.CreatedAt})
	return e, err
}

func environmentSubject(name string) string { return fmt.Sprintf("environment %q", name) }

func (t *tx) GetEnvironment(ctx context.Context, name string) (store.Environment, error) {
	e, err := scanEnvironment(t.queryRow(ctx, `SELECT `+environmentCols+` FROM environments WHERE name = ?`, name))
	return e, adapt(err, environmentSubject(name), nil)
}

func (t *tx) ListEnvironments(ctx context.Context) ([]store.Environment, error) {
	rows, err := t.query(ctx, `SELECT `+environmentCols+` FROM environments ORDER BY sort_order, name`)
	return collect(rows, err, scanEnvironment)
}

func (t *tx) CreateEnvironment(ctx context.Context, e store.Environment) (store.Environment, error) {
	if e.CreatedAt.IsZero() {
		e.CreatedAt = t.now()
	}
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO environments (`+environmentCols+`) VALUES (?, ?, ?, ?, ?, ?)`,
			e.Name, e.Type, e.Enabled, e.SortOrder, e.Protected, timeArg(e.CreatedAt))
		return adapt(err, environmentSubject(e.Name), nil)
	})
	if err != nil {
		return store.Environment{}, err
	}
	return t.GetEnvironment(ctx, e.Name)
}

func (t *tx) UpdateEnvironment(ctx context.Context, e store.Environment) (store.Environment, error) {
	err := t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE environments SET type = ?, enabled = ?, sort_order = ?, protected = ? WHERE name = ?`,
			e.Type, e.Enabled, e.SortOrder, e.Protected, e.Name)
		return affected(res, err, environmentSubject(e.Name), nil)
	})
	if err != nil {
		return store.Environment{}, err
	}
	return t.GetEnvironment(ctx, e.Name)
}

func (t *tx) DeleteEnvironment(ctx context.Context, name string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM environments WHERE name = ?`, name)
		return affected(res, err, environmentSubject(name), nil)
	})
}
