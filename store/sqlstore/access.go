package sqlstore

import (
	"context"
	"fmt"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Project roles of users live in project_user_roles, those of groups in
// project_group_roles; reads put them together as store.ProjectAccess.

const (
	userAccessSelect = `SELECT r.project_id, r.user_id, 0, r.role_id, r.created_by, r.added_at FROM project_user_roles r
		JOIN users u ON u.id = r.user_id AND u.deleted_at IS NULL`
	groupAccessSelect = `SELECT r.project_id, 0, r.group_id, r.role_id, r.created_by, r.added_at FROM project_group_roles r`
)

func scanAccess(r scanner) (store.ProjectAccess, error) {
	var a store.ProjectAccess
	return a, r.Scan(&a.Project, &a.UserID, &a.GroupID, &a.RoleID, &a.CreatedBy, timeCol{&a.AddedAt})
}

func accessSubject(a store.ProjectAccess) string {
	if a.GroupID != 0 {
		return fmt.Sprintf("role %d of group %d in project %q", a.RoleID, a.GroupID, a.Project)
	}
	return fmt.Sprintf("role %d of user %d in project %q", a.RoleID, a.UserID, a.Project)
}

func (t *tx) ListProjectAccess(ctx context.Context, f store.AccessFilter) ([]store.ProjectAccess, error) {
	out := []store.ProjectAccess{}
	if f.UserID != 0 || f.GroupID == 0 {
		q, args := userAccessSelect+` WHERE 1 = 1`, []any{}
		if f.Project != "" {
			q, args = q+` AND r.project_id = ?`, append(args, f.Project)
		}
		if f.UserID != 0 {
			q, args = q+` AND r.user_id = ?`, append(args, f.UserID)
		}
		rows, err := t.query(ctx, q+` ORDER BY r.project_id, r.user_id, r.role_id`, args...)
		list, err := collect(rows, err, scanAccess)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	if f.GroupID != 0 || f.UserID == 0 {
		q, args := groupAccessSelect+` WHERE 1 = 1`, []any{}
		if f.Project != "" {
			q, args = q+` AND r.project_id = ?`, append(args, f.Project)
		}
		if f.GroupID != 0 {
			q, args = q+` AND r.group_id = ?`, append(args, f.GroupID)
		}
		rows, err := t.query(ctx, q+` ORDER BY r.project_id, r.group_id, r.role_id`, args...)
		list, err := collect(rows, err, scanAccess)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	return out, nil
}

func (t *tx) UserProjectRoles(ctx context.Context, user int, project string) ([]store.ProjectAccess, error) {
	own, viaGroups, args := userAccessSelect+` WHERE r.user_id = ?`,
		groupAccessSelect+` JOIN group_members m ON m.group_id = r.group_id
		JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL WHERE m.user_id = ?`, []any{user}
	if project != "" {
		own, viaGroups, args = own+` AND r.project_id = ?`, viaGroups+` AND r.project_id = ?`, append(args, project)
	}
	// Positions, not names: both dialects accept them in a compound ORDER BY.
	rows, err := t.query(ctx, own+` UNION ALL `+viaGroups+` ORDER BY 1, 4, 3`, append(args, args...)...)
	return collect(rows, err, scanAccess)
}

// checkGrant checks what GrantProjectRole and RevokeProjectRole share: one
// subject, and a role that exists and is a project role.
func (t *tx) checkGrant(ctx context.Context, a store.ProjectAccess) error {
	if (a.UserID == 0) == (a.GroupID == 0) {
		return apierr.New(apierr.BadData, "a project role is granted to a user or to a group: set exactly one of them")
	}
	role, err := t.GetRole(ctx, a.RoleID)
	if err != nil {
		return err
	}
	if role.Type != store.RoleTypeProject {
		return apierr.New(apierr.BadData, "role %d (%s) is a %s role, not a project role", role.ID, role.Name, role.Type)
	}
	return nil
}

func (t *tx) GrantProjectRole(ctx context.Context, a store.ProjectAccess) error {
	if a.AddedAt.IsZero() {
		a.AddedAt = t.now()
	}
	return t.write(ctx, func() error {
		if err := t.checkGrant(ctx, a); err != nil {
			return err
		}
		onFK := apierr.New(apierr.NotFound, "project %q not found", a.Project)
		if a.GroupID != 0 {
			if _, err := t.GetGroup(ctx, a.GroupID); err != nil {
				return err
			}
			_, err := t.exec(ctx, `INSERT INTO project_group_roles (project_id, group_id, role_id, created_by, added_at)
				VALUES (?, ?, ?, ?, ?)`, a.Project, a.GroupID, a.RoleID, a.CreatedBy, timeArg(a.AddedAt))
			return adapt(err, accessSubject(a), onFK)
		}
		// A deleted user's row still satisfies the foreign key; selecting
		// the user refuses it.
		res, err := t.exec(ctx, `INSERT INTO project_user_roles (project_id, user_id, role_id, created_by, added_at)
			SELECT ?, id, ?, ?, ? FROM users WHERE id = ? AND deleted_at IS NULL`,
			a.Project, a.RoleID, a.CreatedBy, timeArg(a.AddedAt), a.UserID)
		if err != nil {
			return adapt(err, accessSubject(a), onFK)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("%s: %w", accessSubject(a), err)
		}
		if n == 0 {
			return missing(userSubject(a.UserID))
		}
		return nil
	})
}

func (t *tx) RevokeProjectRole(ctx context.Context, a store.ProjectAccess) error {
	return t.write(ctx, func() error {
		if err := t.checkGrant(ctx, a); err != nil {
			return err
		}
		q, subjectID := `DELETE FROM project_user_roles WHERE project_id = ? AND user_id = ? AND role_id = ?`, a.UserID
		if a.GroupID != 0 {
			q, subjectID = `DELETE FROM project_group_roles WHERE project_id = ? AND group_id = ? AND role_id = ?`, a.GroupID
		}
		res, err := t.exec(ctx, q, a.Project, subjectID, a.RoleID)
		return affected(res, err, accessSubject(a), nil)
	})
}
