package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

const groupCols = `id, name, description, mappings_sso, root_role, created_by, created_at`

func scanGroup(r scanner) (store.Group, error) {
	var g store.Group
	var role sql.NullInt64
	err := r.Scan(&g.ID, &g.Name, &g.Description, jsonCol{&g.MappingsSSO}, &role, &g.CreatedBy, timeCol{&g.CreatedAt})
	g.RootRole = int(role.Int64)
	g.MappingsSSO = nonNil(g.MappingsSSO)
	return g, err
}

func groupSubject(id int) string { return fmt.Sprintf("group %d", id) }

// groupNameSubject names a group by what makes it unique, for NameExists.
func groupNameSubject(name string) string { return fmt.Sprintf("group %q", name) }

func (t *tx) GetGroup(ctx context.Context, id int) (store.Group, error) {
	g, err := scanGroup(t.queryRow(ctx, `SELECT `+groupCols+` FROM user_groups WHERE id = ?`, id))
	return g, adapt(err, groupSubject(id), nil)
}

func (t *tx) ListGroups(ctx context.Context) ([]store.Group, error) {
	rows, err := t.query(ctx, `SELECT `+groupCols+` FROM user_groups ORDER BY id`)
	return collect(rows, err, scanGroup)
}

func scanGroupMember(r scanner) (store.GroupMember, error) {
	var m store.GroupMember
	return m, r.Scan(&m.GroupID, &m.UserID, &m.CreatedBy, timeCol{&m.JoinedAt})
}

func (t *tx) ListGroupMembers(ctx context.Context, group int) ([]store.GroupMember, error) {
	q, args := `SELECT m.group_id, m.user_id, m.created_by, m.joined_at FROM group_members m
		JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL`, []any{}
	if group != 0 {
		if _, err := t.GetGroup(ctx, group); err != nil {
			return nil, err
		}
		q, args = q+` WHERE m.group_id = ?`, append(args, group)
	}
	rows, err := t.query(ctx, q+` ORDER BY m.group_id, m.user_id`, args...)
	return collect(rows, err, scanGroupMember)
}

func (t *tx) ListUserGroups(ctx context.Context, user int) ([]store.Group, error) {
	rows, err := t.query(ctx, `SELECT `+groupCols+` FROM user_groups WHERE id IN (
		SELECT m.group_id FROM group_members m JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL
		WHERE m.user_id = ?) ORDER BY id`, user)
	return collect(rows, err, scanGroup)
}

func (t *tx) CreateGroup(ctx context.Context, g store.Group) (store.Group, error) {
	if g.CreatedAt.IsZero() {
		g.CreatedAt = t.now()
	}
	mappings, err := jsonArg(g.MappingsSSO)
	if err != nil {
		return store.Group{}, apierr.Wrap(apierr.BadData, err, "group SSO mappings cannot be stored")
	}
	err = t.write(ctx, func() error {
		err := t.queryRow(ctx, `INSERT INTO user_groups (name, description, mappings_sso, root_role, created_by, created_at)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			g.Name, g.Description, mappings, nullIfZero(g.RootRole), g.CreatedBy, timeArg(g.CreatedAt)).Scan(&g.ID)
		return adapt(err, groupNameSubject(g.Name), apierr.New(apierr.NotFound, "role %d not found", g.RootRole))
	})
	if err != nil {
		return store.Group{}, err
	}
	return t.GetGroup(ctx, g.ID)
}

func (t *tx) UpdateGroup(ctx context.Context, g store.Group) (store.Group, error) {
	mappings, err := jsonArg(g.MappingsSSO)
	if err != nil {
		return store.Group{}, apierr.Wrap(apierr.BadData, err, "group SSO mappings cannot be stored")
	}
	err = t.write(ctx, func() error {
		res, err := t.exec(ctx, `UPDATE user_groups SET name = ?, description = ?, mappings_sso = ?, root_role = ? WHERE id = ?`,
			g.Name, g.Description, mappings, nullIfZero(g.RootRole), g.ID)
		if err != nil && classify(err) == uniqueViolation {
			return adapt(err, groupNameSubject(g.Name), nil)
		}
		return affected(res, err, groupSubject(g.ID), apierr.New(apierr.NotFound, "role %d not found", g.RootRole))
	})
	if err != nil {
		return store.Group{}, err
	}
	return t.GetGroup(ctx, g.ID)
}

func (t *tx) DeleteGroup(ctx context.Context, id int) error {
	// Memberships and project roles go with the group (ON DELETE CASCADE).
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM user_groups WHERE id = ?`, id)
		return affected(res, err, groupSubject(id), nil)
	})
}

func (t *tx) AddGroupMember(ctx context.Context, m store.GroupMember) error {
	if m.JoinedAt.IsZero() {
		m.JoinedAt = t.now()
	}
	subject := fmt.Sprintf("user %d in group %d", m.UserID, m.GroupID)
	return t.write(ctx, func() error {
		// A deleted user's row still satisfies the foreign key; selecting
		// the user refuses it.
		res, err := t.exec(ctx, `INSERT INTO group_members (group_id, user_id, created_by, joined_at)
			SELECT ?, id, ?, ? FROM users WHERE id = ? AND deleted_at IS NULL`,
			m.GroupID, m.CreatedBy, timeArg(m.JoinedAt), m.UserID)
		if err != nil {
			return adapt(err, subject, apierr.New(apierr.NotFound, "group %d not found", m.GroupID))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("%s: %w", subject, err)
		}
		if n == 0 {
			return missing(userSubject(m.UserID))
		}
		return nil
	})
}

func (t *tx) RemoveGroupMember(ctx context.Context, group, user int) error {
	return t.write(ctx, func() error {
		res, err := t.exec(ctx, `DELETE FROM group_members WHERE group_id = ? AND user_id = ?`, group, user)
		return affected(res, err, fmt.Sprintf("user %d in group %d", user, group), nil)
	})
}
