package store

import (
	"context"
	"time"
)

// ProjectAccess grants a project role (RoleOwner, RoleMember or another role
// of type RoleTypeProject) in one project to a user or to a group: exactly
// one of UserID and GroupID is set. A group's grant applies to each of its
// members.
type ProjectAccess struct {
	Project string
	UserID  int
	GroupID int
	RoleID  int
	// CreatedBy names who granted the role.
	CreatedBy string
	AddedAt   time.Time
}

// AccessFilter selects project grants. Zero fields do not filter; UserID
// and GroupID together select the grants to either.
type AccessFilter struct {
	Project string
	// UserID selects the grants made to the user directly, not those
	// through their groups (see UserProjectRoles).
	UserID  int
	GroupID int
}

// AccessReader reads project access: which users and groups hold which
// project role in which project.
type AccessReader interface {
	// ListProjectAccess returns the matching grants: those to users first,
	// then those to groups, each ordered by project, subject id and role id.
	// Grants to deleted users are left out.
	ListProjectAccess(ctx context.Context, f AccessFilter) ([]ProjectAccess, error)
	// UserProjectRoles returns the grants that give user a project role,
	// their own and those of the groups they belong to, in project or, when
	// project is "", in every project; ordered by project, then role id,
	// then own grants before group ones. None for an unknown or deleted user.
	UserProjectRoles(ctx context.Context, user int, project string) ([]ProjectAccess, error)
}

// AccessWriter changes project access.
type AccessWriter interface {
	// GrantProjectRole stores a; a zero AddedAt is set to now. BadData
	// unless exactly one of UserID and GroupID is set, or if the role is
	// not a project role; NotFound if the project, the user (deleted ones
	// included), the group or the role does not exist; NameExists if the
	// user or group holds the role in the project already.
	GrantProjectRole(ctx context.Context, a ProjectAccess) error
	// RevokeProjectRole removes the grant of a.RoleID in a.Project to
	// a.UserID or a.GroupID. BadData as for GrantProjectRole; NotFound if
	// there is no such grant.
	RevokeProjectRole(ctx context.Context, a ProjectAccess) error
}
