package server

// What Unleash's UI asks about people outside user administration: the
// caller's roles (/api/admin/user/roles), the people and groups anyone
// may pick from when sharing a project (/api/admin/user-admin/access),
// and how many admins there are (/api/admin/user-admin/admin-count).

import (
	"cmp"
	"net/http"

	"github.com/signalbox/signalbox/store"
)

func registerUserOverview(s *Server, m mux) {
	m.admin("GET /api/admin/user/roles", PermRead, s.handleUserRoles)
	m.admin("GET /api/admin/user/permissions", PermRead, s.handleUserPermissions)
	m.admin("GET /api/admin/user-admin/access", PermRead, s.handleUsersAndGroupsBase)
	m.admin("GET /api/admin/user-admin/admin-count", PermAdmin, s.handleAdminCount)
}

// roleJSON is Unleash's roleSchema.
type roleJSON struct {
	ID          int     `json:"id"`
	Type        string  `json:"type"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Project     *string `json:"project,omitempty"`
}

// handleUserRoles is Unleash's getUserRoles: the caller's effective root
// role (their own or a group's, the strongest) and the project roles they
// hold, directly or through a group; with projectId, only that project's.
// An admin token holds the Admin root role.
func (s *Server) handleUserRoles(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := principalFrom(ctx)
	project := r.URL.Query().Get("projectId")
	if err := checkText("projectId", project, 100); err != nil {
		return err
	}
	roles := []roleJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		rootID := store.RoleAdmin
		if p.User != nil {
			rootID = p.RootRole()
		}
		root, err := rd.GetRole(ctx, rootID)
		if err != nil {
			return err
		}
		roles = append(roles, roleJSON{ID: root.ID, Type: root.Type, Name: root.Name, Description: root.Description})
		if p.User == nil {
			return nil
		}
		grants, err := rd.UserProjectRoles(ctx, p.User.ID, project)
		if err != nil {
			return err
		}
		seen := map[int]bool{root.ID: true}
		for _, g := range grants {
			if seen[g.RoleID] {
				continue
			}
			seen[g.RoleID] = true
			role, err := rd.GetRole(ctx, g.RoleID)
			if err != nil {
				return err
			}
			roles = append(roles, roleJSON{ID: role.ID, Type: role.Type, Name: role.Name, Description: role.Description})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "roles": roles})
}

// userBaseJSON is the part of Unleash's userSchema everyone may see.
type userBaseJSON struct {
	ID          int     `json:"id"`
	Name        *string `json:"name,omitempty"`
	Email       string  `json:"email,omitempty"`
	Username    *string `json:"username,omitempty"`
	ImageURL    string  `json:"imageUrl"`
	AccountType string  `json:"accountType"`
}

// groupBaseJSON is the part of Unleash's groupSchema everyone may see.
type groupBaseJSON struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	UserCount int    `json:"userCount"`
	RootRole  *int   `json:"rootRole"`
}

// handleUsersAndGroupsBase is Unleash's getBaseUsersAndGroups: every
// person (not service accounts, not deleted) and group, with no more than
// a name, address and picture, for anyone choosing whom to share a
// project with.
func (s *Server) handleUsersAndGroupsBase(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	users, groups := []userBaseJSON{}, []groupBaseJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		list, err := rd.ListUsers(ctx, store.UserFilter{AccountType: store.AccountUser})
		if err != nil {
			return err
		}
		for _, u := range list {
			users = append(users, userBaseJSON{ID: u.ID, Name: nullable(u.Name), Email: u.Email, Username: nullable(u.Username),
				ImageURL: u.ImageURL, AccountType: cmp.Or(u.AccountType, store.AccountUser)})
		}
		gs, err := rd.ListGroups(ctx)
		if err != nil {
			return err
		}
		for _, g := range gs {
			members, err := rd.ListGroupMembers(ctx, g.ID)
			if err != nil {
				return err
			}
			gj := groupBaseJSON{ID: g.ID, Name: g.Name, UserCount: len(members)}
			if g.RootRole != 0 {
				gj.RootRole = &g.RootRole
			}
			groups = append(groups, gj)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"users": users, "groups": groups})
}

// handleAdminCount is Unleash's getAdminCount: people whose own root role
// is Admin, with and without a password, and Admin service accounts.
// Admins only through a group are not counted, as in Unleash.
func (s *Server) handleAdminCount(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var password, noPassword, service int
	err := s.view(ctx, func(rd store.Reader) error {
		list, err := rd.ListUsers(ctx, store.UserFilter{})
		if err != nil {
			return err
		}
		for _, u := range list {
			switch {
			case u.RootRole != store.RoleAdmin:
			case u.AccountType == store.AccountService:
				service++
			case u.PasswordHash != "":
				password++
			default:
				noPassword++
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]int{"password": password, "noPassword": noPassword, "service": service})
}
