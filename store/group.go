package store

import (
	"context"
	"time"
)

// Group is a named set of users. Its root role applies to every member on
// top of their own, and it can hold project roles for all its members.
type Group struct {
	// ID is assigned by CreateGroup.
	ID int
	// Name is unique among groups (compared exactly).
	Name        string
	Description string
	// MappingsSSO are the names of single-sign-on groups whose members
	// belong to this group.
	MappingsSSO []string
	// RootRole is the id of a role given to every member; 0 for none.
	RootRole  int
	CreatedBy string
	CreatedAt time.Time
}

// GroupMember records that a user belongs to a group.
type GroupMember struct {
	GroupID int
	UserID  int
	// CreatedBy names who added the user.
	CreatedBy string
	JoinedAt  time.Time
}

// GroupReader reads user groups.
type GroupReader interface {
	// GetGroup returns NotFound if there is no group id.
	GetGroup(ctx context.Context, id int) (Group, error)
	// ListGroups returns all groups ordered by id.
	ListGroups(ctx context.Context) ([]Group, error)
	// ListGroupMembers returns the members of group, or of every group when
	// group is 0, ordered by group id, then user id. Deleted users are left
	// out. NotFound if a group other than 0 does not exist.
	ListGroupMembers(ctx context.Context, group int) ([]GroupMember, error)
	// ListUserGroups returns the groups user belongs to, ordered by id;
	// none for an unknown or deleted user.
	ListUserGroups(ctx context.Context, user int) ([]Group, error)
}

// GroupWriter changes user groups.
type GroupWriter interface {
	// CreateGroup stores g and returns it with its new ID; a zero CreatedAt
	// is set to now. NameExists if the name is taken; NotFound if RootRole
	// is not 0 and not a role.
	CreateGroup(ctx context.Context, g Group) (Group, error)
	// UpdateGroup replaces name, description, SSO mappings and root role.
	// NotFound if the group (or the role) does not exist; NameExists as for
	// CreateGroup.
	UpdateGroup(ctx context.Context, g Group) (Group, error)
	// DeleteGroup deletes a group with its memberships and project roles.
	// NotFound if it does not exist.
	DeleteGroup(ctx context.Context, id int) error
	// AddGroupMember adds a user to a group; a zero JoinedAt is set to now.
	// NotFound if the group or the user does not exist (deleted users
	// included); NameExists if the user is a member already.
	AddGroupMember(ctx context.Context, m GroupMember) error
	// RemoveGroupMember removes a user from a group. NotFound if the user is
	// not a member.
	RemoveGroupMember(ctx context.Context, group, user int) error
}
