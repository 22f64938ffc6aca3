package server

import (
	"context"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Permission names an action on the admin API. The names are Unleash's, so
// messages and role definitions read the same to its users.
type Permission string

// The permissions admin routes require.
const (
	PermRead  Permission = "READ" // any signed-in user or admin token
	PermAdmin Permission = "ADMIN"

	PermCreateProject Permission = "CREATE_PROJECT"
	PermUpdateProject Permission = "UPDATE_PROJECT"
	PermDeleteProject Permission = "DELETE_PROJECT"

	PermCreateFeature Permission = "CREATE_FEATURE"
	PermUpdateFeature Permission = "UPDATE_FEATURE"
	PermDeleteFeature Permission = "DELETE_FEATURE"

	PermUpdateFeatureEnvironment Permission = "UPDATE_FEATURE_ENVIRONMENT"
	PermCreateFeatureStrategy    Permission = "CREATE_FEATURE_STRATEGY"
	PermUpdateFeatureStrategy    Permission = "UPDATE_FEATURE_STRATEGY"
	PermDeleteFeatureStrategy    Permission = "DELETE_FEATURE_STRATEGY"
	PermUpdateFeatureVariants    Permission = "UPDATE_FEATURE_ENVIRONMENT_VARIANTS"
	PermUpdateFeatureDependency  Permission = "UPDATE_FEATURE_DEPENDENCY"

	PermCreateEnvironment Permission = "CREATE_ENVIRONMENT"
	PermUpdateEnvironment Permission = "UPDATE_ENVIRONMENT"
	PermDeleteEnvironment Permission = "DELETE_ENVIRONMENT"

	PermCreateSegment Permission = "CREATE_SEGMENT"
	PermUpdateSegment Permission = "UPDATE_SEGMENT"
	PermDeleteSegment Permission = "DELETE_SEGMENT"

	PermCreateContextField Permission = "CREATE_CONTEXT_FIELD"
	PermUpdateContextField Permission = "UPDATE_CONTEXT_FIELD"
	PermDeleteContextField Permission = "DELETE_CONTEXT_FIELD"
	// Creating, changing and deleting the context fields of one project.
	PermUpdateProjectContext Permission = "UPDATE_PROJECT_CONTEXT"

	PermCreateStrategy Permission = "CREATE_STRATEGY"
	PermUpdateStrategy Permission = "UPDATE_STRATEGY"
	PermDeleteStrategy Permission = "DELETE_STRATEGY"

	PermCreateTagType Permission = "CREATE_TAG_TYPE"
	PermUpdateTagType Permission = "UPDATE_TAG_TYPE"
	PermDeleteTagType Permission = "DELETE_TAG_TYPE"

	PermCreateAPIToken Permission = "CREATE_API_TOKEN"
	PermReadAPIToken   Permission = "READ_API_TOKEN"
	PermUpdateAPIToken Permission = "UPDATE_API_TOKEN"
	PermDeleteAPIToken Permission = "DELETE_API_TOKEN"

	// Managing who holds which role in a project.
	PermProjectUserAccessWrite  Permission = "PROJECT_USER_ACCESS_WRITE"
	PermProjectGroupAccessWrite Permission = "PROJECT_GROUP_ACCESS_WRITE"
)

// editorDenied are the permissions an Editor lacks at root level:
// administering users, roles, admin tokens and instance settings stays
// with Admins, and administering a project (its settings, environments,
// change-request requirement, who has access, deleting it) with its Owners
// and Admins. An Editor who creates a project becomes its Owner
// (ownerOfNewProject), so Editors manage the projects they own, as in
// Unleash.
var editorDenied = map[Permission]bool{
	PermAdmin:                   true,
	PermUpdateProject:           true,
	PermDeleteProject:           true,
	PermProjectUserAccessWrite:  true,
	PermProjectGroupAccessWrite: true,
}

// rootRoleAllows reports whether a root role grants perm. Admin grants
// everything; Editor everything but administration of the instance and of
// projects; Viewer only reading. Project roles (Owner, Member) grant
// nothing at root level.
func rootRoleAllows(role int, perm Permission) bool {
	switch role {
	case store.RoleAdmin:
		return true
	case store.RoleEditor:
		return !editorDenied[perm]
	case store.RoleViewer:
		return perm == PermRead
	}
	return false
}

// rootRoleRank orders the root roles by power: Admin > Editor > Viewer.
// Other roles, such as project roles given as a root role, rank below them.
func rootRoleRank(role int) int {
	switch role {
	case store.RoleAdmin:
		return 3
	case store.RoleEditor:
		return 2
	case store.RoleViewer:
		return 1
	}
	return 0
}

// strongestRootRole returns the most powerful of roles, the first one on a
// tie; 0 when there are none.
func strongestRootRole(roles ...int) int {
	best := 0
	for i, r := range roles {
		if i == 0 || rootRoleRank(r) > rootRoleRank(best) {
			best = r
		}
	}
	return best
}

// projectMemberPerms are what the Member project role grants in its
// project: reading it and working on its flags (creating, changing and
// archiving them, their strategies, variants, dependencies, and switching
// them on and off), and creating client and frontend tokens for it. Where
// change requests are required, the same permissions let a Member propose
// those changes in a change request.
var projectMemberPerms = map[Permission]bool{
	PermRead:                     true,
	PermCreateFeature:            true,
	PermUpdateFeature:            true,
	PermDeleteFeature:            true,
	PermUpdateFeatureEnvironment: true,
	PermCreateFeatureStrategy:    true,
	PermUpdateFeatureStrategy:    true,
	PermDeleteFeatureStrategy:    true,
	PermUpdateFeatureVariants:    true,
	PermUpdateFeatureDependency:  true,
	// Client and frontend tokens for the project (see mayCreateForProjects).
	PermCreateAPIToken: true,
}

// projectOwnerPerms are what the Owner project role grants on top of
// Member's: changing and deleting the project itself (its settings,
// environments and change-request requirement; turning the requirement off
// or lowering its approvals stays with Admins), managing who has access to
// it, reviewing and applying its change requests, and managing its own
// context fields.
var projectOwnerPerms = map[Permission]bool{
	PermUpdateProjectContext:    true,
	PermApproveChangeRequest:    true,
	PermApplyChangeRequest:      true,
	PermUpdateProject:           true,
	PermDeleteProject:           true,
	PermProjectUserAccessWrite:  true,
	PermProjectGroupAccessWrite: true,
}

// projectRoleAllows reports whether a project role grants perm in its
// project. Root roles grant nothing here: rootRoleAllows covers them.
func projectRoleAllows(role int, perm Permission) bool {
	switch role {
	case store.RoleOwner:
		return projectMemberPerms[perm] || projectOwnerPerms[perm]
	case store.RoleMember:
		return projectMemberPerms[perm]
	}
	return false
}

// RootRoleNames maps root role ids to their names, as the user API accepts
// and answers them.
var RootRoleNames = map[int]string{
	store.RoleAdmin: "Admin", store.RoleEditor: "Editor", store.RoleViewer: "Viewer",
	store.RoleOwner: "Owner", store.RoleMember: "Member",
}

// allowedIn checks that p holds perm in project (env, when not empty, only
// names the environment in the message): at root level, or through a
// project role the user holds there, directly or through a group. It is
// authorize for checks inside handlers, where the project comes from the
// data rather than the path.
func (s *Server) allowedIn(ctx context.Context, p *Principal, project, env string, perm Permission) error {
	if p == nil {
		return noAccess(perm, env)
	}
	if p.can(perm) {
		return nil
	}
	if p.User == nil || project == "" {
		return noAccess(perm, env)
	}
	ok, err := s.projectRoleGrants(ctx, p.User.ID, project, perm)
	if err != nil || ok {
		return err
	}
	if env != "" {
		return apierr.New(apierr.NoAccess, "you need permission %s in environment %s of project %s to do this", perm, env, project)
	}
	return apierr.New(apierr.NoAccess, "you need permission %s in project %s to do this", perm, project)
}

// projectRoleGrants reports whether user holds a project role in project
// that grants perm.
func (s *Server) projectRoleGrants(ctx context.Context, user int, project string, perm Permission) (bool, error) {
	var grants []store.ProjectAccess
	err := s.view(ctx, func(rd store.Reader) (err error) {
		grants, err = rd.UserProjectRoles(ctx, user, project)
		return err
	})
	if apierr.Is(err, apierr.NotFound) {
		return false, nil
	}
	for _, g := range grants {
		if projectRoleAllows(g.RoleID, perm) {
			return true, err
		}
	}
	return false, err
}
