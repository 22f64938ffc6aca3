package server

// The caller's effective permissions in one project (/api/admin/user/permissions):
// their root role's together with those of the project roles they hold
// there, themselves or through a group. The web UI shows or hides a
// project's controls by it; every request is still checked on its own.

import (
	"net/http"

	"github.com/signalbox/signalbox/store"
)

// projectListedPermissions are the permissions a project role can add to
// those GET /api/admin/user reports.
var projectListedPermissions = append(append([]Permission{}, listedPermissions...),
	PermUpdateProjectContext, PermProjectUserAccessWrite, PermProjectGroupAccessWrite)

// handleUserPermissions answers {project, permissions}, permissions in
// the shape of GET /api/admin/user's, ADMIN alone standing for all.
// Without project it answers the root permissions; an unknown project is
// 404.
func (s *Server) handleUserPermissions(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := principalFrom(ctx)
	project := r.URL.Query().Get("project")
	if err := checkText("project", project, 100); err != nil {
		return err
	}
	var grants []store.ProjectAccess
	if project != "" {
		err := s.view(ctx, func(rd store.Reader) error {
			if _, err := rd.GetProject(ctx, project); err != nil {
				return err
			}
			if p.User == nil || p.can(PermAdmin) {
				return nil
			}
			var err error
			grants, err = rd.UserProjectRoles(ctx, p.User.ID, project)
			return err
		})
		if err != nil {
			return err
		}
	}
	held := permissionsOf(p)
	if len(grants) > 0 {
		held = held[:0]
		for _, perm := range projectListedPermissions {
			if p.can(perm) || grantsAllow(grants, perm) {
				held = append(held, map[string]string{"permission": string(perm)})
			}
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"project": project, "permissions": held})
}

// grantsAllow reports whether one of the project role grants allows perm.
func grantsAllow(grants []store.ProjectAccess, perm Permission) bool {
	for _, g := range grants {
		if projectRoleAllows(g.RoleID, perm) {
			return true
		}
	}
	return false
}
