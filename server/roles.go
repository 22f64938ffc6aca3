package server

import (
	"net/http"

	"github.com/signalbox/signalbox/store"
)

// Roles and what each may do (GET /api/admin/roles, Unleash's path): the
// root roles (Admin, Editor, Viewer) and the project roles (Owner,
// Member), each with the permissions it grants, for people deciding whom
// to give which role. The permissions come from rootRoleAllows and
// projectRoleAllows, the same rules that authorize requests, so the list
// cannot drift from what the server enforces.

func registerRoles(s *Server, m mux) {
	m.admin("GET /api/admin/roles", PermRead, s.handleListRoles)
}

// describedPermission is a permission with what it lets its holder do, in
// plain words.
type describedPermission struct {
	perm Permission
	text string
}

// describedPermissions are the permissions a role can grant, in the order
// they are listed.
var describedPermissions = []describedPermission{
	{PermAdmin, "Administer the instance: users, groups, roles, admin tokens and settings"},
	{PermRead, "See projects, flags, segments, environments and the event log"},
	{PermCreateProject, "Create projects"},
	{PermUpdateProject, "Change project settings and environments"},
	{PermDeleteProject, "Delete projects"},
	{PermProjectUserAccessWrite, "Give and take project roles of users"},
	{PermProjectGroupAccessWrite, "Give and take project roles of groups"},
	{PermCreateFeature, "Create feature flags"},
	{PermUpdateFeature, "Change feature flags"},
	{PermDeleteFeature, "Archive and delete feature flags"},
	{PermUpdateFeatureEnvironment, "Switch flags on and off in environments"},
	{PermCreateFeatureStrategy, "Add strategies to flags"},
	{PermUpdateFeatureStrategy, "Change strategies of flags"},
	{PermDeleteFeatureStrategy, "Remove strategies from flags"},
	{PermUpdateFeatureVariants, "Change the variants of flags"},
	{PermUpdateFeatureDependency, "Change the dependencies of flags"},
	{PermApproveChangeRequest, "Approve change requests"},
	{PermApplyChangeRequest, "Apply change requests"},
	{PermCreateEnvironment, "Create environments"},
	{PermUpdateEnvironment, "Change environments"},
	{PermDeleteEnvironment, "Delete environments"},
	{PermCreateSegment, "Create segments"},
	{PermUpdateSegment, "Change segments"},
	{PermDeleteSegment, "Delete segments"},
	{PermCreateContextField, "Create context fields"},
	{PermUpdateContextField, "Change context fields"},
	{PermDeleteContextField, "Delete context fields"},
	{PermCreateStrategy, "Create strategy types"},
	{PermUpdateStrategy, "Change strategy types"},
	{PermDeleteStrategy, "Delete strategy types"},
	{PermCreateTagType, "Create tag types"},
	{PermUpdateTagType, "Change tag types"},
	{PermDeleteTagType, "Delete tag types"},
	{PermCreateAPIToken, "Create API tokens (project roles: client and frontend tokens of the project)"},
	{PermReadAPIToken, "See API tokens"},
	{PermUpdateAPIToken, "Change API tokens"},
	{PermDeleteAPIToken, "Delete API tokens"},
}

// rolePermissionJSON is one permission of a role.
type rolePermissionJSON struct {
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
	Type        string `json:"type"`
}

// roleWithPermissionsJSON is a role and the permissions it grants.
type roleWithPermissionsJSON struct {
	rootRoleJSON
	Permissions []rolePermissionJSON `json:"permissions"`
}

// rolePermissions lists what role grants: at root level for root roles,
// in their project for project roles. Other roles grant nothing.
func rolePermissions(role store.Role) []rolePermissionJSON {
	allows := func(Permission) bool { return false }
	switch role.Type {
	case store.RoleTypeRoot:
		allows = func(p Permission) bool { return rootRoleAllows(role.ID, p) }
	case store.RoleTypeProject:
		allows = func(p Permission) bool { return projectRoleAllows(role.ID, p) }
	}
	out := []rolePermissionJSON{}
	for _, dp := range describedPermissions {
		if allows(dp.perm) {
			out = append(out, rolePermissionJSON{Name: string(dp.perm), DisplayName: dp.text, Type: role.Type})
		}
	}
	return out
}

// handleListRoles answers every role with its permissions.
func (s *Server) handleListRoles(w http.ResponseWriter, r *http.Request) error {
	var roles []store.Role
	err := s.view(r.Context(), func(rd store.Reader) (err error) {
		roles, err = rd.ListRoles(r.Context())
		return err
	})
	if err != nil {
		return err
	}
	out := []roleWithPermissionsJSON{}
	for _, role := range roles {
		out = append(out, roleWithPermissionsJSON{rootRoleJSON: roleResponse(role), Permissions: rolePermissions(role)})
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "roles": out})
}
