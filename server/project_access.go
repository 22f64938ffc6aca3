package server

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Project access: who holds which project role (Owner, Member) in a
// project, directly or through a group. A project role grants its
// permissions in that project only (see projectRoleAllows and authorize).
// The paths are Unleash Enterprise's: the modern …/access family, and the
// older …/users and …/role/{roleId}/access that it replaced, kept for older
// tools.

func registerProjectAccess(s *Server, m mux) {
	const project = "/api/admin/projects/{projectId}"
	m.admin("GET "+project+"/users", PermRead, s.handleProjectUsers)
	m.admin("POST "+project+"/role/{roleId}/access", PermProjectUserAccessWrite, s.handleAddRoleAccess)
	m.admin("GET "+project+"/access", PermRead, s.handleProjectAccess)
	m.admin("POST "+project+"/access", PermProjectUserAccessWrite, s.handleAddProjectAccess)
	m.admin("PUT "+project+"/users/{userId}/roles", PermProjectUserAccessWrite, s.handleSetProjectRoles(false))
	m.admin("DELETE "+project+"/users/{userId}/roles", PermProjectUserAccessWrite, s.handleRemoveProjectRoles(false))
	m.admin("PUT "+project+"/groups/{groupId}/roles", PermProjectGroupAccessWrite, s.handleSetProjectRoles(true))
	m.admin("DELETE "+project+"/groups/{groupId}/roles", PermProjectGroupAccessWrite, s.handleRemoveProjectRoles(true))
}

// projectUserJSON is a user with their roles in a project (Unleash's
// userWithProjectRoleSchema): roleId is their first role, addedAt when they
// got their first.
type projectUserJSON struct {
	ID       int       `json:"id"`
	Name     string    `json:"name"`
	Email    *string   `json:"email"`
	Username *string   `json:"username"`
	ImageURL *string   `json:"imageUrl"`
	AddedAt  time.Time `json:"addedAt"`
	RoleID   int       `json:"roleId"`
	Roles    []int     `json:"roles"`
	IsAPI    bool      `json:"isAPI"`
}

// projectGroupJSON is a group with its roles in a project (Unleash's
// groupWithProjectRoleSchema).
type projectGroupJSON struct {
	groupJSON
	AddedAt time.Time `json:"addedAt"`
	RoleID  int       `json:"roleId"`
	Roles   []int     `json:"roles"`
}

// projectAccessJSON is the answer of GET …/access.
type projectAccessJSON struct {
	Users  []projectUserJSON  `json:"users"`
	Groups []projectGroupJSON `json:"groups"`
	Roles  []rootRoleJSON     `json:"roles"`
}

// subjectRoles gathers the grants of one user or group in a project.
type subjectRoles struct {
	id      int
	addedAt time.Time
	roles   []int
}

// gatherRoles groups grants by subject (the user or the group, as key
// picks), in the order of the grants.
func gatherRoles(grants []store.ProjectAccess, key func(store.ProjectAccess) int) []*subjectRoles {
	var out []*subjectRoles
	byID := map[int]*subjectRoles{}
	for _, g := range grants {
		id := key(g)
		if id == 0 {
			continue
		}
		sr := byID[id]
		if sr == nil {
			sr = &subjectRoles{id: id, addedAt: g.AddedAt}
			byID[id] = sr
			out = append(out, sr)
		}
		if g.AddedAt.Before(sr.addedAt) {
			sr.addedAt = g.AddedAt
		}
		sr.roles = append(sr.roles, g.RoleID)
	}
	for _, sr := range out {
		slices.Sort(sr.roles)
	}
	return out
}

// projectAccessOf reads who holds which role in project. NotFound if there
// is no such project.
func projectAccessOf(ctx context.Context, rd store.Reader, project string) (projectAccessJSON, error) {
	out := projectAccessJSON{Users: []projectUserJSON{}, Groups: []projectGroupJSON{}}
	if _, err := rd.GetProject(ctx, project); err != nil {
		return out, err
	}
	grants, err := rd.ListProjectAccess(ctx, store.AccessFilter{Project: project})
	if err != nil {
		return out, err
	}
	if out.Roles, err = projectRoles(ctx, rd); err != nil {
		return out, err
	}
	users, err := rd.ListUsers(ctx, store.UserFilter{})
	if err != nil {
		return out, err
	}
	userByID := make(map[int]store.User, len(users))
	for _, u := range users {
		userByID[u.ID] = u
	}
	for _, sr := range gatherRoles(grants, func(g store.ProjectAccess) int { return g.UserID }) {
		u, ok := userByID[sr.id]
		if !ok {
			continue
		}
		out.Users = append(out.Users, projectUserJSON{
			ID: u.ID, Name: u.Name, Email: nullable(u.Email), Username: nullable(u.Username), ImageURL: nullable(u.ImageURL),
			AddedAt: sr.addedAt, RoleID: sr.roles[0], Roles: sr.roles, IsAPI: false,
		})
	}
	holders := gatherRoles(grants, func(g store.ProjectAccess) int { return g.GroupID })
	if len(holders) == 0 {
		return out, nil
	}
	all, err := rd.ListGroups(ctx)
	if err != nil {
		return out, err
	}
	var groups []store.Group
	for _, sr := range holders {
		for _, g := range all {
			if g.ID == sr.id {
				groups = append(groups, g)
			}
		}
	}
	answers, err := groupResponses(ctx, rd, groups)
	if err != nil {
		return out, err
	}
	for i, sr := range holders {
		out.Groups = append(out.Groups, projectGroupJSON{groupJSON: answers[i], AddedAt: sr.addedAt, RoleID: sr.roles[0], Roles: sr.roles})
	}
	return out, nil
}

// projectRoles lists the roles that can be granted in a project.
func projectRoles(ctx context.Context, rd store.Reader) ([]rootRoleJSON, error) {
	all, err := rd.ListRoles(ctx)
	out := []rootRoleJSON{}
	for _, role := range all {
		if role.Type == store.RoleTypeProject {
			out = append(out, roleResponse(role))
		}
	}
	return out, err
}

// handleProjectUsers is the older GET …/users: the users who hold a role in
// the project themselves (groups are listed by GET …/access) and the
// project roles.
func (s *Server) handleProjectUsers(w http.ResponseWriter, r *http.Request) error {
	access, err := s.projectAccess(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"users": access.Users, "roles": access.Roles})
}

// handleProjectAccess answers the users and groups that hold roles in the
// project, and the roles there are.
func (s *Server) handleProjectAccess(w http.ResponseWriter, r *http.Request) error {
	access, err := s.projectAccess(r)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, access)
}

// projectAccess reads the access of the project in the path.
func (s *Server) projectAccess(r *http.Request) (access projectAccessJSON, err error) {
	ctx := r.Context()
	err = s.view(ctx, func(rd store.Reader) (err error) {
		access, err = projectAccessOf(ctx, rd, r.PathValue("projectId"))
		return err
	})
	return access, err
}

// idRef is an element {"id": n} of the users and groups of access bodies.
type idRef struct {
	ID *int `json:"id"`
}

// refIDs checks a list of {id} and returns the ids, each once.
// grantTargets reads the users and groups a grant names: at least one of
// either, and granting to groups needs the group-access permission too.
func (s *Server) grantTargets(r *http.Request, userRefs, groupRefs []idRef) (users, groups []int, err error) {
	if users, err = refIDs("users", userRefs); err != nil {
		return nil, nil, err
	}
	if groups, err = refIDs("groups", groupRefs); err != nil {
		return nil, nil, err
	}
	if len(users) == 0 && len(groups) == 0 {
		return nil, nil, apierr.Invalid("users", "users and groups are both empty; name at least one user or group to grant to")
	}
	if len(groups) > 0 {
		if err := s.authorize(r, principalFrom(r.Context()), PermProjectGroupAccessWrite); err != nil {
			return nil, nil, err
		}
	}
	return users, groups, nil
}

func refIDs(field string, refs []idRef) ([]int, error) {
	var ids []int
	for i, ref := range refs {
		if ref.ID == nil {
			return nil, apierr.Invalid(fmt.Sprintf("%s[%d].id", field, i), "each element of %s needs an integer id", field)
		}
		if !slices.Contains(ids, *ref.ID) {
			ids = append(ids, *ref.ID)
		}
	}
	return ids, nil
}

// checkSubjects checks that users and groups exist; an unknown one is a
// 400 naming its place in the body.
func checkSubjects(ctx context.Context, rd store.Reader, users, groups []int) error {
	for i, id := range users {
		if _, err := rd.GetUser(ctx, id); apierr.Is(err, apierr.NotFound) {
			return apierr.Invalid(fmt.Sprintf("users[%d].id", i), "there is no user with id %d", id)
		} else if err != nil {
			return err
		}
	}
	for i, id := range groups {
		if _, err := rd.GetGroup(ctx, id); apierr.Is(err, apierr.NotFound) {
			return apierr.Invalid(fmt.Sprintf("groups[%d].id", i), "there is no group with id %d", id)
		} else if err != nil {
			return err
		}
	}
	return nil
}

// checkProjectRole checks that id is a project role; field names the body
// property or path parameter it came from.
func checkProjectRole(ctx context.Context, rd store.Reader, field string, id int) error {
	role, err := rd.GetRole(ctx, id)
	if apierr.Is(err, apierr.NotFound) {
		return apierr.Invalid(field, "there is no role with id %d", id)
	}
	if err != nil {
		return err
	}
	if role.Type != store.RoleTypeProject {
		return apierr.Invalid(field, "role %d (%s) is a root role; a project role such as Owner (%d) or Member (%d) is needed",
			id, role.Name, store.RoleOwner, store.RoleMember)
	}
	return nil
}

// grant gives a project role; holding it already is no error. It reports
// whether the grant is new.
func grant(ctx context.Context, tx store.Tx, a store.ProjectAccess) (bool, error) {
	err := tx.GrantProjectRole(ctx, a)
	if apierr.Is(err, apierr.NameExists) {
		return false, nil
	}
	return err == nil, err
}

// accessAdded is the data of project-access-added.
type accessAdded struct {
	Roles  []int `json:"roles"`
	Users  []int `json:"users"`
	Groups []int `json:"groups"`
}

// handleAddProjectAccess grants each of the roles to each of the users and
// groups. Roles already held stay; the event project-access-added records
// the request when anything was new.
func (s *Server) handleAddProjectAccess(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Roles  []int   `json:"roles"`
		Users  []idRef `json:"users"`
		Groups []idRef `json:"groups"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if len(body.Roles) == 0 {
		return apierr.Invalid("roles", "roles must list at least one project role id")
	}
	users, groups, err := s.grantTargets(r, body.Users, body.Groups)
	if err != nil {
		return err
	}
	ctx, project := r.Context(), r.PathValue("projectId")
	by := principalFrom(ctx).Name()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.GetProject(ctx, project); err != nil {
			return nil, err
		}
		var roles []int
		for i, id := range body.Roles {
			if err := checkProjectRole(ctx, tx, fmt.Sprintf("roles[%d]", i), id); err != nil {
				return nil, err
			}
			if !slices.Contains(roles, id) {
				roles = append(roles, id)
			}
		}
		if err := checkSubjects(ctx, tx, users, groups); err != nil {
			return nil, err
		}
		changed := false
		for _, role := range roles {
			for _, a := range grantsTo(project, role, by, users, groups) {
				isNew, err := grant(ctx, tx, a)
				if err != nil {
					return nil, err
				}
				changed = changed || isNew
			}
		}
		if !changed {
			return nil, nil
		}
		data := accessAdded{Roles: roles, Users: nonNilList(users), Groups: nonNilList(groups)}
		return []store.Event{{Type: "project-access-added", Project: project, Data: eventData(data)}}, nil
	}))
}

// grantsTo lists the grants of role to each user and group.
func grantsTo(project string, role int, by string, users, groups []int) []store.ProjectAccess {
	var out []store.ProjectAccess
	for _, id := range users {
		out = append(out, store.ProjectAccess{Project: project, UserID: id, RoleID: role, CreatedBy: by})
	}
	for _, id := range groups {
		out = append(out, store.ProjectAccess{Project: project, GroupID: id, RoleID: role, CreatedBy: by})
	}
	return out
}

// handleAddRoleAccess is the older POST …/role/{roleId}/access: grants the
// role in the path to the listed users and groups (both lists required,
// together not empty). Events: project-user-added and project-group-added
// for each new grant.
func (s *Server) handleAddRoleAccess(w http.ResponseWriter, r *http.Request) error {
	role, err := pathInt(r, "roleId")
	if err != nil {
		return err
	}
	var body struct {
		Users  *[]idRef `json:"users"`
		Groups *[]idRef `json:"groups"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Users == nil {
		return apierr.Invalid("users", "users is required: a list of {id}, possibly empty")
	}
	if body.Groups == nil {
		return apierr.Invalid("groups", "groups is required: a list of {id}, possibly empty")
	}
	users, groups, err := s.grantTargets(r, *body.Users, *body.Groups)
	if err != nil {
		return err
	}
	ctx, project := r.Context(), r.PathValue("projectId")
	by := principalFrom(ctx).Name()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if _, err := tx.GetProject(ctx, project); err != nil {
			return nil, err
		}
		if _, err := tx.GetRole(ctx, role); err != nil {
			return nil, err
		}
		if err := checkProjectRole(ctx, tx, "roleId", role); err != nil {
			return nil, err
		}
		if err := checkSubjects(ctx, tx, users, groups); err != nil {
			return nil, err
		}
		var events []store.Event
		for _, a := range grantsTo(project, role, by, users, groups) {
			isNew, err := grant(ctx, tx, a)
			if err != nil {
				return nil, err
			}
			if !isNew {
				continue
			}
			e := store.Event{Type: "project-user-added", Project: project,
				Data: eventData(map[string]int{"roleId": role, "userId": a.UserID})}
			if a.GroupID != 0 {
				e = store.Event{Type: "project-group-added", Project: project,
					Data: eventData(map[string]int{"roleId": role, "groupId": a.GroupID})}
			}
			events = append(events, e)
		}
		return events, nil
	}))
}

// subjectOf reads the user or group in the path (404 when unknown) and
// returns the access filter that selects its grants in project.
func subjectOf(ctx context.Context, rd store.Reader, r *http.Request, group bool) (store.AccessFilter, error) {
	f := store.AccessFilter{Project: r.PathValue("projectId")}
	if _, err := rd.GetProject(ctx, f.Project); err != nil {
		return f, err
	}
	if group {
		id, err := pathInt(r, "groupId")
		if err != nil {
			return f, err
		}
		f.GroupID = id
		_, err = rd.GetGroup(ctx, id)
		return f, err
	}
	id, err := pathInt(r, "userId")
	if err != nil {
		return f, err
	}
	f.UserID = id
	_, err = rd.GetUser(ctx, id)
	return f, err
}

// rolesEvent is the data and preData of the project-access-*-roles-*
// events.
type rolesEvent struct {
	Roles   []int `json:"roles"`
	UserID  int   `json:"userId,omitempty"`
	GroupID int   `json:"groupId,omitempty"`
}

// heldRoles lists the role ids of grants.
func heldRoles(grants []store.ProjectAccess) []int {
	out := []int{}
	for _, g := range grants {
		out = append(out, g.RoleID)
	}
	return out
}

// handleSetProjectRoles answers PUT …/users/{userId}/roles and
// …/groups/{groupId}/roles: body {roles: [ids]}, the exact set of project
// roles the user or group is to hold in the project (empty removes them
// all). Event project-access-user-roles-updated or
// project-access-group-roles-updated.
func (s *Server) handleSetProjectRoles(group bool) handlerFunc {
	eventType := "project-access-user-roles-updated"
	if group {
		eventType = "project-access-group-roles-updated"
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		var body struct {
			Roles *[]int `json:"roles"`
		}
		if err := decode(w, r, &body); err != nil {
			return err
		}
		if body.Roles == nil {
			return apierr.Invalid("roles", "roles is required: the ids of the project roles to hold, possibly none")
		}
		ctx := r.Context()
		by := principalFrom(ctx).Name()
		return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			f, err := subjectOf(ctx, tx, r, group)
			if err != nil {
				return nil, err
			}
			want := []int{}
			for i, id := range *body.Roles {
				if err := checkProjectRole(ctx, tx, fmt.Sprintf("roles[%d]", i), id); err != nil {
					return nil, err
				}
				if !slices.Contains(want, id) {
					want = append(want, id)
				}
			}
			slices.Sort(want)
			held, err := tx.ListProjectAccess(ctx, f)
			if err != nil {
				return nil, err
			}
			for _, g := range held {
				if !slices.Contains(want, g.RoleID) {
					if err := tx.RevokeProjectRole(ctx, g); err != nil {
						return nil, err
					}
				}
			}
			for _, role := range want {
				a := store.ProjectAccess{Project: f.Project, UserID: f.UserID, GroupID: f.GroupID, RoleID: role, CreatedBy: by}
				if _, err := grant(ctx, tx, a); err != nil {
					return nil, err
				}
			}
			return []store.Event{{Type: eventType, Project: f.Project,
				Data:    eventData(rolesEvent{Roles: want, UserID: f.UserID, GroupID: f.GroupID}),
				PreData: eventData(rolesEvent{Roles: heldRoles(held), UserID: f.UserID, GroupID: f.GroupID}),
			}}, nil
		}))
	}
}

// handleRemoveProjectRoles answers DELETE …/users/{userId}/roles and
// …/groups/{groupId}/roles: the user or group loses every role it holds in
// the project (404 when it holds none). Event
// project-access-user-roles-deleted or project-access-group-roles-deleted.
func (s *Server) handleRemoveProjectRoles(group bool) handlerFunc {
	eventType := "project-access-user-roles-deleted"
	if group {
		eventType = "project-access-group-roles-deleted"
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := r.Context()
		return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
			f, err := subjectOf(ctx, tx, r, group)
			if err != nil {
				return nil, err
			}
			held, err := tx.ListProjectAccess(ctx, f)
			if err != nil {
				return nil, err
			}
			if len(held) == 0 {
				what := fmt.Sprintf("user %d", f.UserID)
				if group {
					what = fmt.Sprintf("group %d", f.GroupID)
				}
				return nil, apierr.New(apierr.NotFound, "%s holds no role in project %s", what, f.Project)
			}
			for _, g := range held {
				if err := tx.RevokeProjectRole(ctx, g); err != nil {
					return nil, err
				}
			}
			return []store.Event{{Type: eventType, Project: f.Project,
				PreData: eventData(rolesEvent{Roles: heldRoles(held), UserID: f.UserID, GroupID: f.GroupID}),
			}}, nil
		}))
	}
}

// ownerOfNewProject makes the user who creates a project its Owner, as
// Unleash does, and returns the event that records it. API tokens have no
// user: nothing happens for them.
func ownerOfNewProject(ctx context.Context, tx store.Tx, project string) ([]store.Event, error) {
	p := principalFrom(ctx)
	if p == nil || p.User == nil {
		return nil, nil
	}
	a := store.ProjectAccess{Project: project, UserID: p.User.ID, RoleID: store.RoleOwner, CreatedBy: p.Name()}
	if err := tx.GrantProjectRole(ctx, a); err != nil {
		return nil, err
	}
	data := accessAdded{Roles: []int{store.RoleOwner}, Users: []int{p.User.ID}, Groups: []int{}}
	return []store.Event{{Type: "project-access-added", Project: project, Data: eventData(data)}}, nil
}

// projectMemberCounts counts, per project, the users who hold a role there,
// themselves or through a group (each user once).
func projectMemberCounts(ctx context.Context, rd store.Reader) (map[string]int, error) {
	grants, err := rd.ListProjectAccess(ctx, store.AccessFilter{})
	if err != nil {
		return nil, err
	}
	members, err := rd.ListGroupMembers(ctx, 0)
	if err != nil {
		return nil, err
	}
	inGroup := map[int][]int{}
	for _, m := range members {
		inGroup[m.GroupID] = append(inGroup[m.GroupID], m.UserID)
	}
	users := map[string]map[int]bool{}
	for _, g := range grants {
		if users[g.Project] == nil {
			users[g.Project] = map[int]bool{}
		}
		if g.UserID != 0 {
			users[g.Project][g.UserID] = true
		}
		for _, u := range inGroup[g.GroupID] {
			users[g.Project][u] = true
		}
	}
	counts := make(map[string]int, len(users))
	for p, set := range users {
		counts[p] = len(set)
	}
	return counts, nil
}
