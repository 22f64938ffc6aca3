package server

import "github.com/signalbox/signalbox/store"

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
)

// editorDenied are the permissions an Editor lacks: administering users,
// roles, admin tokens and instance settings stays with Admins.
var editorDenied = map[Permission]bool{
	PermAdmin: true,
}

// rootRoleAllows reports whether a root role grants perm. Admin grants
// everything; Editor everything but administration; Viewer only reading.
// Project roles (Owner, Member) grant nothing at root level.
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

// RootRoleNames maps root role ids to their names, as the user API accepts
// and answers them.
var RootRoleNames = map[int]string{
	store.RoleAdmin: "Admin", store.RoleEditor: "Editor", store.RoleViewer: "Viewer",
	store.RoleOwner: "Owner", store.RoleMember: "Member",
}
