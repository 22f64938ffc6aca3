package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const segmentCols = `id, name, description, project_id, constraints, created_at, created_by`

func scanSegment(r scanner) (store.Segment, error) {
	var s store.Segment
	var project sql.NullString
	err := r.Scan(&s.ID, &s.Name, &s.Description, &project, jsonCol{&s.Constraints}, timeCol{&s.CreatedAt}, &s.CreatedBy)
	s.Project = project.String
	s.Constraints = nonNil(s.Constraints)
	return s, err
}

func segmentSubject(id int) string { return fmt.Sprintf("segment %d", id) }

func (t *tx) GetSegment(ctx context.Context, id int) (store.Segment, error) {
	s, err := scanSegment(t.queryRow(ctx, `SELECT `+segmentCols+` FROM segments WHERE id = ?`, id))
	return s, adapt(err, segmentSubject(id), nil)
}

func (t *tx) ListSegments(ctx context.Context, f store.SegmentFilter) ([]store.Segment, error) {
	q, args := `SELECT `+segmentCols+` FROM segments`, []any{}
	if f.Project != "" {
		q, args = q+` WHERE project_id IS NULL OR project_id = ?`, append(args, f.Project)
	}
	rows, err := t.query(ctx, q+` ORDER BY id`, args...)
	return collect(rows, err, scanSegment)
}

func (t *tx) CreateSegment(ctx context.Context, s store.Segment) (store.Segment, error) {
	if s.CreatedAt.IsZero() {
		s.CreatedAt = t.now()
	}
	constraints, err := jsonArg(s.Constraints)
	if err != nil {
		return store.Segment{}, apierr.Wrap(apierr.BadData, err, "segment constraints cannot be stored")
	}
	err = t.write(ctx, func() error {
		if s.ID != 0 {
			return t.insertSegmentWithID(ctx, s, constraints)
		}
		err := t.queryRow(ctx, `INSERT INTO segments (name, description, project_id, constraints, created_at, created_by)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			s.Name, s.Description, nullIfEmpty(s.Project), constraints, timeArg(s.CreatedAt), s.CreatedBy).Scan(&s.ID)
		return adapt(err, fmt.Sprintf("segment %q", s.Name), apierr.New(apierr.NotFound, "project %q not found", s.Project))
	})
	if err != nil {
		return store.Segment{}, err
	}
	return t.GetSegment(ctx, s.ID)
}

// insertSegmentWithID stores a segment under the id it had elsewhere (SDK
// payloads refer to segments by id, so a copied segment keeps it). The
// PostgreSQL identity is then moved past the highest id, so that later
// segments without an id do not collide; SQLite's AUTOINCREMENT does that
// by itself.
func (t *tx) insertSegmentWithID(ctx context.Context, s store.Segment, constraints any) error {
	if s.ID < 0 {
		return apierr.New(apierr.BadData, "segment id %d is not positive", s.ID)
	}
	_, err := t.exec(ctx, `INSERT INTO segments (id, name, description, project_id, constraints, created_at, created_by)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.Name, s.Description, nullIfEmpty(s.Project), constraints, timeArg(s.CreatedAt), s.CreatedBy)
	if err != nil {
		if classify(err) == uniqueViolation {
			if _, getErr := t.GetSegment(ctx, s.ID); getErr == nil {
				return apierr.New(apierr.NameExists, "segment id %d is taken", s.ID)
			}
		}
		return adapt(err, fmt.Sprintf("segment %q", s.Name), apierr.New(apierr.NotFound, "project %q not found", s.Project))
	}
	if t.d.name == "postgres" {
		_, err = t.exec(ctx, `SELECT setval(pg_get_serial_sequence('segments', 'id'), (SELECT MAX(id) FROM segments))`)
	}
	return err
}

func (t *tx) UpdateSegment(ctx context.Context, s store.Segment) (store.Segment, error) {
	constraints, err := jsonArg(s.Constraints)
	if err != nil {
		return store.Segment{}, apierr.Wrap(apierr.BadData, err, "segment constraints cannot be stored")
	}
	err = t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE segments SET name = ?, description = ?, project_id = ?, constraints = ? WHERE id = ?`,
			s.Name, s.Description, nullIfEmpty(s.Project), constraints, s.ID)
		if err != nil && classify(err) == uniqueViolation {
			return adapt(err, fmt.Sprintf("segment %q", s.Name), nil)
		}
		return affected(res, err, segmentSubject(s.ID), apierr.New(apierr.NotFound, "project %q not found", s.Project))
	})
	if err != nil {
		return store.Segment{}, err
	}
	return t.GetSegment(ctx, s.ID)
}

func (t *tx) DeleteSegment(ctx context.Context, id int) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM segments WHERE id = ?`, id)
		return affected(res, err, segmentSubject(id),
			apierr.New(apierr.BadData, "segment %d is still used by strategies; remove it from them first", id))
	})
}
