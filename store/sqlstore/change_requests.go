package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Change requests live in five tables: the per project environment
// settings, the requests, their changes, their reviews (approvals and
// rejections) and their comments. A request is read whole: listing loads
// the requests first and then the rows of the other three tables for all
// of them at once.

func (t *tx) GetChangeRequestConfig(ctx context.Context, project, environment string) (store.ChangeRequestConfig, error) {
	c := store.ChangeRequestConfig{Project: project, Environment: environment, RequiredApprovals: 1}
	err := t.queryRow(ctx, `SELECT enabled, required_approvals FROM change_request_settings
		WHERE project_id = ? AND environment = ?`, project, environment).Scan(&c.Enabled, &c.RequiredApprovals)
	if errors.Is(err, sql.ErrNoRows) {
		return c, nil
	}
	return c, adapt(err, projectEnvSubject(project, environment), nil)
}

func (t *tx) ListChangeRequestConfigs(ctx context.Context, project string) ([]store.ChangeRequestConfig, error) {
	if _, err := t.GetProject(ctx, project); err != nil {
		return nil, err
	}
	rows, err := t.query(ctx, `SELECT pe.project_id, pe.environment, COALESCE(s.enabled, FALSE), COALESCE(s.required_approvals, 1)
		FROM project_environments pe
		JOIN environments e ON e.name = pe.environment
		LEFT JOIN change_request_settings s ON s.project_id = pe.project_id AND s.environment = pe.environment
		WHERE pe.project_id = ? ORDER BY e.sort_order, e.name`, project)
	return collect(rows, err, func(r scanner) (store.ChangeRequestConfig, error) {
		var c store.ChangeRequestConfig
		return c, r.Scan(&c.Project, &c.Environment, &c.Enabled, &c.RequiredApprovals)
	})
}

func (t *tx) SetChangeRequestConfig(ctx context.Context, c store.ChangeRequestConfig) (store.ChangeRequestConfig, error) {
	err := t.write(ctx, func() error {
		_, err := t.exec(ctx, `INSERT INTO change_request_settings (project_id, environment, enabled, required_approvals)
			VALUES (?, ?, ?, ?) ON CONFLICT (project_id, environment)
			DO UPDATE SET enabled = excluded.enabled, required_approvals = excluded.required_approvals`,
			c.Project, c.Environment, c.Enabled, c.RequiredApprovals)
		return adapt(err, projectEnvSubject(c.Project, c.Environment),
			apierr.New(apierr.NotFound, "environment %q is not enabled in project %q", c.Environment, c.Project))
	})
	if err != nil {
		return store.ChangeRequestConfig{}, err
	}
	return t.GetChangeRequestConfig(ctx, c.Project, c.Environment)
}

func changeRequestSubject(id int) string { return fmt.Sprintf("change request %d", id) }

const changeRequestCols = `cr.id, cr.project_id, cr.environment, cr.title, cr.state, cr.min_approvals,
	cr.created_by_key, cr.created_by, cr.created_by_user_id, cr.created_at,
	cr.scheduled_at, cr.schedule_status, cr.failure_reason`

func scanChangeRequest(r scanner) (store.ChangeRequest, error) {
	var cr store.ChangeRequest
	var userID sql.NullInt64
	var at *time.Time
	var status, reason sql.NullString
	err := r.Scan(&cr.ID, &cr.Project, &cr.Environment, &cr.Title, &cr.State, &cr.MinApprovals,
		&cr.CreatedBy.Key, &cr.CreatedBy.Name, &userID, timeCol{&cr.CreatedAt},
		nullTimeCol{&at}, &status, &reason)
	cr.CreatedBy.UserID = int(userID.Int64)
	if at != nil {
		cr.Schedule = &store.ChangeRequestSchedule{At: *at, Status: status.String, FailureReason: reason.String}
	}
	cr.Changes, cr.Approvals, cr.Rejections, cr.Comments = []store.Change{}, []store.Review{}, []store.Review{}, []store.Comment{}
	return cr, err
}

// actorArgs are the three columns that store an actor.
func actorArgs(a store.Actor) []any { return []any{a.Key, a.Name, nullIfZero(a.UserID)} }

func (t *tx) GetChangeRequest(ctx context.Context, id int) (store.ChangeRequest, error) {
	list, err := t.listChangeRequests(ctx, " WHERE cr.id = ?", []any{id})
	if err != nil {
		return store.ChangeRequest{}, err
	}
	if len(list) == 0 {
		return store.ChangeRequest{}, missing(changeRequestSubject(id))
	}
	return list[0], nil
}

func (t *tx) ListChangeRequests(ctx context.Context, f store.ChangeRequestFilter) ([]store.ChangeRequest, error) {
	var where []string
	var args []any
	if f.Project != "" {
		where, args = append(where, "cr.project_id = ?"), append(args, f.Project)
	}
	if f.Environment != "" {
		where, args = append(where, "cr.environment = ?"), append(args, f.Environment)
	}
	if f.States != nil {
		if len(f.States) == 0 {
			return []store.ChangeRequest{}, nil
		}
		in, vals := inList(f.States)
		where, args = append(where, "cr.state IN ("+in+")"), append(args, vals...)
	}
	if f.Feature != "" {
		where = append(where, "EXISTS (SELECT 1 FROM change_request_changes c WHERE c.change_request_id = cr.id AND c.feature_name = ?)")
		args = append(args, f.Feature)
	}
	if f.CreatedBy != "" {
		where, args = append(where, "cr.created_by_key = ?"), append(args, f.CreatedBy)
	}
	if f.DueBy != nil {
		where = append(where, "cr.state = ? AND cr.schedule_status = ? AND cr.scheduled_at <= ?")
		args = append(args, store.ChangeRequestScheduled, store.SchedulePending, timeArg(*f.DueBy))
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	cond += " ORDER BY cr.id DESC"
	if f.Limit > 0 {
		cond, args = cond+" LIMIT ?", append(args, f.Limit)
	}
	return t.listChangeRequests(ctx, cond, args)
}

// listChangeRequests reads the requests selected by cond (a WHERE clause
// with its ORDER BY and LIMIT) and then their changes, reviews and
// comments.
func (t *tx) listChangeRequests(ctx context.Context, cond string, args []any) ([]store.ChangeRequest, error) {
	rows, err := t.query(ctx, `SELECT `+changeRequestCols+` FROM change_requests cr`+cond, args...)
	list, err := collect(rows, err, scanChangeRequest)
	if err != nil || len(list) == 0 {
		return list, err
	}
	ids := make([]int, len(list))
	byID := make(map[int]*store.ChangeRequest, len(list))
	for i := range list {
		ids[i] = list[i].ID
		byID[list[i].ID] = &list[i]
	}
	in, idArgs := inList(ids)

	rows, err = t.query(ctx, `SELECT id, change_request_id, feature_name, action, payload, snapshot,
		created_by_key, created_by, created_by_user_id, created_at
		FROM change_request_changes WHERE change_request_id IN (`+in+`) ORDER BY id`, idArgs...)
	changes, err := collect(rows, err, scanChange)
	if err != nil {
		return nil, err
	}
	for _, c := range changes {
		cr := byID[c.ChangeRequestID]
		cr.Changes = append(cr.Changes, c)
	}

	type review struct {
		id   int
		kind string
		store.Review
	}
	rows, err = t.query(ctx, `SELECT change_request_id, kind, created_by_key, created_by, created_by_user_id, created_at
		FROM change_request_reviews WHERE change_request_id IN (`+in+`) ORDER BY created_at, created_by_key`, idArgs...)
	reviews, err := collect(rows, err, func(r scanner) (review, error) {
		var v review
		var userID sql.NullInt64
		err := r.Scan(&v.id, &v.kind, &v.By.Key, &v.By.Name, &userID, timeCol{&v.CreatedAt})
		v.By.UserID = int(userID.Int64)
		return v, err
	})
	if err != nil {
		return nil, err
	}
	for _, v := range reviews {
		cr := byID[v.id]
		if v.kind == reviewApproval {
			cr.Approvals = append(cr.Approvals, v.Review)
		} else {
			cr.Rejections = append(cr.Rejections, v.Review)
		}
	}

	rows, err = t.query(ctx, `SELECT change_request_id, id, text, created_by_key, created_by, created_by_user_id, created_at
		FROM change_request_comments WHERE change_request_id IN (`+in+`) ORDER BY id`, idArgs...)
	type comment struct {
		id int
		store.Comment
	}
	comments, err := collect(rows, err, func(r scanner) (comment, error) {
		var c comment
		var userID sql.NullInt64
		err := r.Scan(&c.id, &c.ID, &c.Text, &c.By.Key, &c.By.Name, &userID, timeCol{&c.CreatedAt})
		c.By.UserID = int(userID.Int64)
		return c, err
	})
	if err != nil {
		return nil, err
	}
	for _, c := range comments {
		cr := byID[c.id]
		cr.Comments = append(cr.Comments, c.Comment)
	}
	return list, nil
}

func scanChange(r scanner) (store.Change, error) {
	var c store.Change
	var feature sql.NullString
	var userID sql.NullInt64
	err := r.Scan(&c.ID, &c.ChangeRequestID, &feature, &c.Action, rawJSONCol{&c.Payload}, rawJSONCol{&c.Snapshot},
		&c.CreatedBy.Key, &c.CreatedBy.Name, &userID, timeCol{&c.CreatedAt})
	c.Feature, c.CreatedBy.UserID = feature.String, int(userID.Int64)
	return c, err
}

// scheduleArgs are the three schedule columns of a request.
func scheduleArgs(s *store.ChangeRequestSchedule) []any {
	if s == nil {
		return []any{nil, nil, nil}
	}
	return []any{timeArg(s.At), s.Status, nullIfEmpty(s.FailureReason)}
}

func (t *tx) CreateChangeRequest(ctx context.Context, cr store.ChangeRequest) (store.ChangeRequest, error) {
	if cr.CreatedAt.IsZero() {
		cr.CreatedAt = t.now()
	}
	err := t.write(ctx, func() error {
		args := append([]any{cr.Project, cr.Environment, cr.Title, cr.State, cr.MinApprovals}, actorArgs(cr.CreatedBy)...)
		args = append(append(args, timeArg(cr.CreatedAt)), scheduleArgs(cr.Schedule)...)
		err := t.queryRow(ctx, `INSERT INTO change_requests (project_id, environment, title, state, min_approvals,
			created_by_key, created_by, created_by_user_id, created_at, scheduled_at, schedule_status, failure_reason)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, args...).Scan(&cr.ID)
		return adapt(err, "change request",
			apierr.New(apierr.NotFound, "project %q or environment %q not found", cr.Project, cr.Environment))
	})
	if err != nil {
		return store.ChangeRequest{}, err
	}
	return t.GetChangeRequest(ctx, cr.ID)
}

func (t *tx) UpdateChangeRequest(ctx context.Context, cr store.ChangeRequest) (store.ChangeRequest, error) {
	err := t.write(ctx, func() error {
		args := append([]any{cr.Title, cr.State, cr.MinApprovals}, scheduleArgs(cr.Schedule)...)
		res, err := t.exec(ctx, `UPDATE change_requests SET title = ?, state = ?, min_approvals = ?,
			scheduled_at = ?, schedule_status = ?, failure_reason = ? WHERE id = ?`, append(args, cr.ID)...)
		return affected(res, err, changeRequestSubject(cr.ID), nil)
	})
	if err != nil {
		return store.ChangeRequest{}, err
	}
	return t.GetChangeRequest(ctx, cr.ID)
}

func (t *tx) DeleteChangeRequest(ctx context.Context, id int) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM change_requests WHERE id = ?`, id)
		return affected(res, err, changeRequestSubject(id), nil)
	})
}

// optionalJSON checks an optional JSON document of a change; nil stays
// NULL.
func optionalJSON(name string, raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if !json.Valid(raw) {
		return nil, apierr.New(apierr.BadData, "the %s of a change is not valid JSON", name)
	}
	return string(raw), nil
}

func (t *tx) AddChange(ctx context.Context, c store.Change) (store.Change, error) {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = t.now()
	}
	payload, err := optionalJSON("payload", c.Payload)
	if err != nil {
		return store.Change{}, err
	}
	snapshot, err := optionalJSON("snapshot", c.Snapshot)
	if err != nil {
		return store.Change{}, err
	}
	err = t.write(ctx, func() error {
		args := append([]any{c.ChangeRequestID, nullIfEmpty(c.Feature), c.Action, payload, snapshot}, actorArgs(c.CreatedBy)...)
		err := t.queryRow(ctx, `INSERT INTO change_request_changes (change_request_id, feature_name, action, payload, snapshot,
			created_by_key, created_by, created_by_user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			append(args, timeArg(c.CreatedAt))...).Scan(&c.ID)
		return adapt(err, "change", apierr.New(apierr.NotFound, "%s not found", changeRequestSubject(c.ChangeRequestID)))
	})
	if err != nil {
		return store.Change{}, err
	}
	return scanChange(t.queryRow(ctx, `SELECT id, change_request_id, feature_name, action, payload, snapshot,
		created_by_key, created_by, created_by_user_id, created_at FROM change_request_changes WHERE id = ?`, c.ID))
}

func (t *tx) DeleteChange(ctx context.Context, changeRequestID, changeID int) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM change_request_changes WHERE change_request_id = ? AND id = ?`, changeRequestID, changeID)
		return affected(res, err, fmt.Sprintf("change %d of %s", changeID, changeRequestSubject(changeRequestID)), nil)
	})
}

// Review kinds in change_request_reviews.
const (
	reviewApproval  = "approval"
	reviewRejection = "rejection"
)

func (t *tx) addReview(ctx context.Context, id int, kind string, r store.Review) error {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = t.now()
	}
	return t.write(ctx, func() error {
		args := append([]any{id, kind}, actorArgs(r.By)...)
		_, err := t.exec(ctx, `INSERT INTO change_request_reviews (change_request_id, kind, created_by_key, created_by,
			created_by_user_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`, append(args, timeArg(r.CreatedAt))...)
		return adapt(err, fmt.Sprintf("%s of %s by %s", kind, changeRequestSubject(id), r.By.Name),
			apierr.New(apierr.NotFound, "%s not found", changeRequestSubject(id)))
	})
}

func (t *tx) AddApproval(ctx context.Context, changeRequestID int, r store.Review) error {
	return t.addReview(ctx, changeRequestID, reviewApproval, r)
}

func (t *tx) AddRejection(ctx context.Context, changeRequestID int, r store.Review) error {
	return t.addReview(ctx, changeRequestID, reviewRejection, r)
}

func (t *tx) ClearApprovals(ctx context.Context, changeRequestID int) error {
	return t.write(ctx, func() error {
		var n int
		if err := t.queryRow(ctx, `SELECT COUNT(*) FROM change_requests WHERE id = ?`, changeRequestID).Scan(&n); err != nil {
			return adapt(err, changeRequestSubject(changeRequestID), nil)
		}
		if n == 0 {
			return missing(changeRequestSubject(changeRequestID))
		}
		_, err := t.exec(ctx, `DELETE FROM change_request_reviews WHERE change_request_id = ? AND kind = ?`, changeRequestID, reviewApproval)
		return adapt(err, changeRequestSubject(changeRequestID), nil)
	})
}

func (t *tx) AddComment(ctx context.Context, changeRequestID int, c store.Comment) (store.Comment, error) {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = t.now()
	}
	err := t.guard(ctx, func() error {
		args := append([]any{changeRequestID, c.Text}, actorArgs(c.By)...)
		err := t.queryRow(ctx, `INSERT INTO change_request_comments (change_request_id, text, created_by_key, created_by,
			created_by_user_id, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, append(args, timeArg(c.CreatedAt))...).Scan(&c.ID)
		return adapt(err, "comment", apierr.New(apierr.NotFound, "%s not found", changeRequestSubject(changeRequestID)))
	})
	if err != nil {
		return store.Comment{}, err
	}
	c.CreatedAt = utc(c.CreatedAt)
	return c, nil
}
