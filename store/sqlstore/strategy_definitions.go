package sqlstore

import (
	"context"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const strategyDefCols = `name, title, description, parameters, editable, deprecated, created_at`

func scanStrategyDef(r scanner) (store.StrategyDefinition, error) {
	var d store.StrategyDefinition
	err := r.Scan(&d.Name, &d.Title, &d.Description, jsonCol{&d.Parameters}, &d.Editable, &d.Deprecated, timeCol{&d.CreatedAt})
	d.Parameters = nonNil(d.Parameters)
	return d, err
}

func strategyDefSubject(name string) string { return fmt.Sprintf("strategy type %q", name) }

func (t *tx) GetStrategyDefinition(ctx context.Context, name string) (store.StrategyDefinition, error) {
	d, err := scanStrategyDef(t.queryRow(ctx, `SELECT `+strategyDefCols+` FROM strategy_definitions WHERE name = ?`, name))
	return d, adapt(err, strategyDefSubject(name), nil)
}

func (t *tx) ListStrategyDefinitions(ctx context.Context) ([]store.StrategyDefinition, error) {
	// Built-ins (not editable) first.
	rows, err := t.query(ctx, `SELECT `+strategyDefCols+` FROM strategy_definitions ORDER BY editable, name`)
	return collect(rows, err, scanStrategyDef)
}

func (t *tx) CreateStrategyDefinition(ctx context.Context, d store.StrategyDefinition) (store.StrategyDefinition, error) {
	if d.CreatedAt.IsZero() {
		d.CreatedAt = t.now()
	}
	params, err := jsonArg(d.Parameters)
	if err != nil {
		return store.StrategyDefinition{}, apierr.Wrap(apierr.BadData, err, "strategy parameters cannot be stored")
	}
	err = t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO strategy_definitions (`+strategyDefCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			d.Name, d.Title, d.Description, params, d.Editable, d.Deprecated, timeArg(d.CreatedAt))
		return adapt(err, strategyDefSubject(d.Name), nil)
	})
	if err != nil {
		return store.StrategyDefinition{}, err
	}
	return t.GetStrategyDefinition(ctx, d.Name)
}

func (t *tx) UpdateStrategyDefinition(ctx context.Context, d store.StrategyDefinition) (store.StrategyDefinition, error) {
	params, err := jsonArg(d.Parameters)
	if err != nil {
		return store.StrategyDefinition{}, apierr.Wrap(apierr.BadData, err, "strategy parameters cannot be stored")
	}
	err = t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE strategy_definitions SET title = ?, description = ?, parameters = ?, editable = ?,
			deprecated = ? WHERE name = ?`, d.Title, d.Description, params, d.Editable, d.Deprecated, d.Name)
		return affected(res, err, strategyDefSubject(d.Name), nil)
	})
	if err != nil {
		return store.StrategyDefinition{}, err
	}
	return t.GetStrategyDefinition(ctx, d.Name)
}

func (t *tx) DeleteStrategyDefinition(ctx context.Context, name string) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM strategy_definitions WHERE name = ?`, name)
		return affected(res, err, strategyDefSubject(name), nil)
	})
}
