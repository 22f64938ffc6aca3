package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const contextFieldCols = `name, description, legal_values, stickiness, sort_order, created_at, project`

func scanContextField(r scanner) (store.ContextField, error) {
	var c store.ContextField
	var project sql.NullString
	err := r.Scan(&c.Name, &c.Description, jsonCol{&c.LegalValues}, &c.Stickiness, &c.SortOrder, timeCol{&c.CreatedAt}, &project)
	c.LegalValues, c.Project = nonNil(c.LegalValues), project.String
	return c, err
}

func contextFieldSubject(name string) string { return fmt.Sprintf("context field %q", name) }

func (t *tx) GetContextField(ctx context.Context, name string) (store.ContextField, error) {
	c, err := scanContextField(t.queryRow(ctx, `SELECT `+contextFieldCols+` FROM context_fields WHERE name = ?`, name))
	return c, adapt(err, contextFieldSubject(name), nil)
}

func (t *tx) ListContextFields(ctx context.Context) ([]store.ContextField, error) {
	rows, err := t.query(ctx, `SELECT `+contextFieldCols+` FROM context_fields ORDER BY sort_order, name`)
	return collect(rows, err, scanContextField)
}

func (t *tx) CreateContextField(ctx context.Context, c store.ContextField) (store.ContextField, error) {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = t.now()
	}
	legal, err := jsonArg(c.LegalValues)
	if err != nil {
		return store.ContextField{}, apierr.Wrap(apierr.BadData, err, "legal values cannot be stored")
	}
	err = t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO context_fields (`+contextFieldCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			c.Name, c.Description, legal, c.Stickiness, c.SortOrder, timeArg(c.CreatedAt), nullIfEmpty(c.Project))
		return adapt(err, contextFieldSubject(c.Name), apierr.New(apierr.NotFound, "there is no project %q", c.Project))
	})
	if err != nil {
		return store.ContextField{}, err
	}
	return t.GetContextField(ctx, c.Name)
}

func (t *tx) UpdateContextField(ctx context.Context, c store.ContextField) (store.ContextField, error) {
	legal, err := jsonArg(c.LegalValues)
	if err != nil {
		return store.ContextField{}, apierr.Wrap(apierr.BadData, err, "legal values cannot be stored")
	}
	err = t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE context_fields SET description = ?, legal_values = ?, stickiness = ?, sort_order = ?
			WHERE name = ?`, c.Description, legal, c.Stickiness, c.SortOrder, c.Name)
		return affected(res, err, contextFieldSubject(c.Name), nil)
	})
	if err != nil {
		return store.ContextField{}, err
	}
	return t.GetContextField(ctx, c.Name)
}

func (t *tx) DeleteContextField(ctx context.Context, name string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM context_fields WHERE name = ?`, name)
		return affected(res, err, contextFieldSubject(name), nil)
	})
}
