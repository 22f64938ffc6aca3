package sqlstore

import (
	"context"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func scanDependency(r scanner) (store.Dependency, error) {
	var d store.Dependency
	err := r.Scan(&d.Child, &d.Parent, &d.Enabled, jsonCol{&d.Variants})
	d.Variants = nonNil(d.Variants)
	return d, err
}

func dependencySubject(child, parent string) string {
	return fmt.Sprintf("dependency of %q on %q", child, parent)
}

func (t *tx) ListDependencies(ctx context.Context, child string) ([]store.Dependency, error) {
	q, args := `SELECT child, parent, enabled, variants FROM feature_dependencies`, []any{}
	if child != "" {
		q, args = q+` WHERE child = ?`, append(args, child)
	}
	rows, err := t.query(ctx, q+` ORDER BY child, parent`, args...)
	return collect(rows, err, scanDependency)
}

func (t *tx) ListChildren(ctx context.Context, parent string) ([]string, error) {
	rows, err := t.query(ctx, `SELECT child FROM feature_dependencies WHERE parent = ? ORDER BY child`, parent)
	return collect(rows, err, func(r scanner) (string, error) {
		var s string
		return s, r.Scan(&s)
	})
}

func (t *tx) CreateDependency(ctx context.Context, d store.Dependency) error {
	if d.Child == d.Parent {
		return apierr.New(apierr.BadData, "feature %q cannot depend on itself", d.Child)
	}
	variants, err := jsonArg(d.Variants)
	if err != nil {
		return apierr.Wrap(apierr.BadData, err, "dependency variants cannot be stored")
	}
	return t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO feature_dependencies (child, parent, enabled, variants) VALUES (?, ?, ?, ?)`,
			d.Child, d.Parent, d.Enabled, variants)
		return adapt(err, dependencySubject(d.Child, d.Parent),
			apierr.New(apierr.NotFound, "feature %q or %q not found", d.Child, d.Parent))
	})
}

func (t *tx) UpdateDependency(ctx context.Context, d store.Dependency) error {
	variants, err := jsonArg(d.Variants)
	if err != nil {
		return apierr.Wrap(apierr.BadData, err, "dependency variants cannot be stored")
	}
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE feature_dependencies SET enabled = ?, variants = ? WHERE child = ? AND parent = ?`,
			d.Enabled, variants, d.Child, d.Parent)
		return affected(res, err, dependencySubject(d.Child, d.Parent), nil)
	})
}

func (t *tx) DeleteDependency(ctx context.Context, child, parent string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM feature_dependencies WHERE child = ? AND parent = ?`, child, parent)
		return affected(res, err, dependencySubject(child, parent), nil)
	})
}

func (t *tx) DeleteDependencies(ctx context.Context, child string) error {
	return t.write(ctx, func() error {
		_, err := t.exec(ctx, `DELETE FROM feature_dependencies WHERE child = ?`, child)
		return adapt(err, fmt.Sprintf("dependencies of %q", child), nil)
	})
}
