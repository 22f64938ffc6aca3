package sqlstore

import "context"

func (t *tx) ListEventCreatorIDs(ctx context.Context) ([]int, error) {
	rows, err := t.query(ctx, `SELECT DISTINCT created_by_user_id FROM events
		WHERE created_by_user_id IS NOT NULL AND created_by_user_id > 0 ORDER BY created_by_user_id`)
	return collect(rows, err, func(r scanner) (int, error) {
		var id int
		err := r.Scan(&id)
		return id, err
	})
}
