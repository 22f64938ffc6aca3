package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// Groups: /api/admin/groups, named sets of users (Unleash Enterprise's user
// groups). A group's root role applies to every member on top of their own
// (the most powerful wins, see Principal.RootRole), and project roles given
// to a group apply to each member in that project. Reading is open to every
// signed-in user, so that project owners can pick groups; changing needs
// ADMIN.

func registerGroups(s *Server, m mux) {
	m.admin("GET /api/admin/groups", PermRead, s.handleListGroups)
	m.admin("POST /api/admin/groups", PermAdmin, s.handleCreateGroup)
	m.admin("GET /api/admin/groups/{groupId}", PermRead, s.handleGetGroup)
	m.admin("PUT /api/admin/groups/{groupId}", PermAdmin, s.handleUpdateGroup)
	m.admin("DELETE /api/admin/groups/{groupId}", PermAdmin, s.handleDeleteGroup)
}

// groupJSON is Unleash's groupSchema.
type groupJSON struct {
	ID          int             `json:"id"`
	Name        string          `json:"name"`
	Description *string         `json:"description"`
	MappingsSSO []string        `json:"mappingsSSO"`
	RootRole    *int            `json:"rootRole"`
	CreatedBy   *string         `json:"createdBy"`
	CreatedAt   *time.Time      `json:"createdAt"`
	Users       []groupUserJSON `json:"users"`
	Projects    []string        `json:"projects"`
	UserCount   int             `json:"userCount"`
}

// groupItemJSON is Unleash's groupItemSchema: a group without its members,
// as the own profile lists them.
type groupItemJSON struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`
	Description *string  `json:"description"`
	MappingsSSO []string `json:"mappingsSSO"`
	RootRole    *int     `json:"rootRole"`
}

func groupItem(g store.Group) groupItemJSON {
	item := groupItemJSON{ID: g.ID, Name: g.Name, Description: nullable(g.Description), MappingsSSO: nonNilList(g.MappingsSSO)}
	if g.RootRole != 0 {
		item.RootRole = &g.RootRole
	}
	return item
}

// groupUserJSON is Unleash's groupUserModelSchema: one member.
type groupUserJSON struct {
	JoinedAt  time.Time `json:"joinedAt"`
	CreatedBy *string   `json:"createdBy"`
	User      UserJSON  `json:"user"`
}

// groupMemberEvent is the data of group-user-added and group-user-removed.
type groupMemberEvent struct {
	GroupID int `json:"groupId"`
	UserID  int `json:"userId"`
}

// groupResponses answers groups with their members and the projects in
// which they hold a role, from one read of each.
func groupResponses(ctx context.Context, rd store.Reader, groups []store.Group) ([]groupJSON, error) {
	out := make([]groupJSON, 0, len(groups))
	if len(groups) == 0 {
		return out, nil
	}
	only, filter := 0, store.AccessFilter{}
	if len(groups) == 1 {
		only = groups[0].ID
		filter.GroupID = only
	}
	members, err := rd.ListGroupMembers(ctx, only)
	if err != nil {
		return nil, err
	}
	users, err := rd.ListUsers(ctx, store.UserFilter{})
	if err != nil {
		return nil, err
	}
	grants, err := rd.ListProjectAccess(ctx, filter)
	if err != nil {
		return nil, err
	}
	byID := make(map[int]store.User, len(users))
	for _, u := range users {
		byID[u.ID] = u
	}
	membersOf := map[int][]groupUserJSON{}
	for _, m := range members {
		if u, ok := byID[m.UserID]; ok {
			membersOf[m.GroupID] = append(membersOf[m.GroupID], groupUserJSON{JoinedAt: m.JoinedAt, CreatedBy: nullable(m.CreatedBy), User: userResponse(u)})
		}
	}
	projectsOf := map[int][]string{}
	for _, g := range grants {
		if g.GroupID != 0 && !contains(projectsOf[g.GroupID], g.Project) {
			projectsOf[g.GroupID] = append(projectsOf[g.GroupID], g.Project)
		}
	}
	for _, g := range groups {
		j := groupJSON{
			ID: g.ID, Name: g.Name, Description: nullable(g.Description), MappingsSSO: nonNilList(g.MappingsSSO),
			CreatedBy: nullable(g.CreatedBy), Users: nonNilList(membersOf[g.ID]), Projects: nonNilList(projectsOf[g.ID]),
			UserCount: len(membersOf[g.ID]),
		}
		if g.RootRole != 0 {
			j.RootRole = &g.RootRole
		}
		if !g.CreatedAt.IsZero() {
			j.CreatedAt = &g.CreatedAt
		}
		out = append(out, j)
	}
	return out, nil
}

// groupResponse is groupResponses for one group.
func groupResponse(ctx context.Context, rd store.Reader, g store.Group) (groupJSON, error) {
	list, err := groupResponses(ctx, rd, []store.Group{g})
	if err != nil {
		return groupJSON{}, err
	}
	return list[0], nil
}

// groupBody is Unleash's createGroupSchema, the body of POST and PUT. PUT
// overrides every field: one left out is cleared (no description, SSO
// mappings, root role or members).
type groupBody struct {
	Name        *string  `json:"name"`
	Description *string  `json:"description"`
	MappingsSSO []string `json:"mappingsSSO"`
	RootRole    *int     `json:"rootRole"`
	Users       []struct {
		User *struct {
			ID *int `json:"id"`
		} `json:"user"`
	} `json:"users"`
}

// parse checks the body and returns the group it describes and the ids of
// its members, each once, in the order sent (not yet checked to exist).
func (b groupBody) parse() (store.Group, []int, error) {
	var g store.Group
	if b.Name == nil || strings.TrimSpace(*b.Name) == "" {
		return g, nil, apierr.Invalid("name", "name is required and must not be empty")
	}
	g.Name = strings.TrimSpace(*b.Name)
	if err := checkText("name", g.Name, 255); err != nil {
		return g, nil, err
	}
	if b.Description != nil {
		g.Description = *b.Description
		if err := checkText("description", g.Description, 1000); err != nil {
			return g, nil, err
		}
	}
	g.MappingsSSO = []string{}
	for i, m := range b.MappingsSSO {
		m = strings.TrimSpace(m)
		if err := checkText(fmt.Sprintf("mappingsSSO[%d]", i), m, 255); err != nil {
			return g, nil, err
		}
		if m != "" && !contains(g.MappingsSSO, m) {
			g.MappingsSSO = append(g.MappingsSSO, m)
		}
	}
	if b.RootRole != nil && *b.RootRole != 0 {
		if rootRoleRank(*b.RootRole) == 0 {
			return g, nil, apierr.Invalid("rootRole", "rootRole must be the id of the Admin (%d), Editor (%d) or Viewer (%d) role, or null, not %d",
				store.RoleAdmin, store.RoleEditor, store.RoleViewer, *b.RootRole)
		}
		g.RootRole = *b.RootRole
	}
	var ids []int
	seen := map[int]bool{}
	for i, u := range b.Users {
		if u.User == nil || u.User.ID == nil {
			return g, nil, apierr.Invalid(fmt.Sprintf("users[%d].user.id", i), "each element of users needs user.id, the id of a user")
		}
		if id := *u.User.ID; !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return g, ids, nil
}

// checkGroupUsers checks that each id is a user; an unknown one is a 400
// naming its place in the body.
func checkGroupUsers(ctx context.Context, rd store.Reader, b groupBody, ids []int) error {
	for _, id := range ids {
		if _, err := rd.GetUser(ctx, id); apierr.Is(err, apierr.NotFound) {
			for i, u := range b.Users {
				if *u.User.ID == id {
					return apierr.Invalid(fmt.Sprintf("users[%d].user.id", i), "there is no user with id %d", id)
				}
			}
		} else if err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) handleListGroups(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var out []groupJSON
	err := s.view(ctx, func(rd store.Reader) error {
		groups, err := rd.ListGroups(ctx)
		if err != nil {
			return err
		}
		out, err = groupResponses(ctx, rd, groups)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"groups": out})
}

func (s *Server) handleGetGroup(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "groupId")
	if err != nil {
		return err
	}
	ctx := r.Context()
	var out groupJSON
	err = s.view(ctx, func(rd store.Reader) error {
		g, err := rd.GetGroup(ctx, id)
		if err != nil {
			return err
		}
		out, err = groupResponse(ctx, rd, g)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleCreateGroup creates a group with its members: events group-created
// and one group-user-added per member. A taken name is a 409.
func (s *Server) handleCreateGroup(w http.ResponseWriter, r *http.Request) error {
	var body groupBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	g, ids, err := body.parse()
	if err != nil {
		return err
	}
	ctx := r.Context()
	by := principalFrom(ctx).Name()
	g.CreatedBy = by
	var out groupJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		if err := checkGroupUsers(ctx, tx, body, ids); err != nil {
			return nil, err
		}
		created, err := tx.CreateGroup(ctx, g)
		if err != nil {
			return nil, err
		}
		events := []store.Event{{Type: "group-created"}}
		for _, id := range ids {
			if err := tx.AddGroupMember(ctx, store.GroupMember{GroupID: created.ID, UserID: id, CreatedBy: by}); err != nil {
				return nil, err
			}
			events = append(events, store.Event{Type: "group-user-added", Data: eventData(groupMemberEvent{created.ID, id})})
		}
		if out, err = groupResponse(ctx, tx, created); err != nil {
			return nil, err
		}
		events[0].Data = eventData(out)
		return events, nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/admin/groups/"+strconv.Itoa(out.ID))
	return writeJSON(w, http.StatusCreated, out)
}

// handleUpdateGroup is PUT /api/admin/groups/:groupId: the body
// overrides the group's details and members. Events: group-updated, then
// group-user-removed and group-user-added for each member that left or
// joined.
func (s *Server) handleUpdateGroup(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "groupId")
	if err != nil {
		return err
	}
	var body groupBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	ctx := r.Context()
	var out groupJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		before, err := tx.GetGroup(ctx, id)
		if err != nil {
			return nil, err
		}
		g, ids, err := body.parse()
		if err != nil {
			return nil, err
		}
		if err := checkGroupUsers(ctx, tx, body, ids); err != nil {
			return nil, err
		}
		pre, err := groupResponse(ctx, tx, before)
		if err != nil {
			return nil, err
		}
		g.ID = id
		updated, err := tx.UpdateGroup(ctx, g)
		if err != nil {
			return nil, err
		}
		events := []store.Event{{Type: "group-updated", PreData: eventData(pre)}}
		stay := map[int]bool{}
		for _, uid := range ids {
			stay[uid] = true
		}
		had := map[int]bool{}
		for _, m := range pre.Users {
			had[m.User.ID] = true
			if !stay[m.User.ID] {
				if err := tx.RemoveGroupMember(ctx, id, m.User.ID); err != nil {
					return nil, err
				}
				events = append(events, store.Event{Type: "group-user-removed", Data: eventData(groupMemberEvent{id, m.User.ID})})
			}
		}
		for _, uid := range ids {
			if !had[uid] {
				if err := tx.AddGroupMember(ctx, store.GroupMember{GroupID: id, UserID: uid, CreatedBy: principalFrom(ctx).Name()}); err != nil {
					return nil, err
				}
				events = append(events, store.Event{Type: "group-user-added", Data: eventData(groupMemberEvent{id, uid})})
			}
		}
		if out, err = groupResponse(ctx, tx, updated); err != nil {
			return nil, err
		}
		events[0].Data = eventData(out)
		return events, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// handleDeleteGroup deletes a group; its members lose its root role and
// its project roles. Event group-deleted.
func (s *Server) handleDeleteGroup(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "groupId")
	if err != nil {
		return err
	}
	ctx := r.Context()
	return s.answerEmptyOK(w, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		g, err := tx.GetGroup(ctx, id)
		if err != nil {
			return nil, err
		}
		pre, err := groupResponse(ctx, tx, g)
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteGroup(ctx, id); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "group-deleted", PreData: eventData(pre)}}, nil
	}))
}
