package migrate

import (
	"context"
	"slices"
	"testing"

	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store"
)

const sourceAdminToken = "*:*.source-admin-secret"

// sourceWithGroups is a Signalbox serving what only Unleash's paid editions
// offer: groups with members, project roles of users and groups, and
// change requests required in an environment.
func sourceWithGroups(t *testing.T) string {
	t.Helper()
	st := openStore(t)
	ctx := t.Context()
	if _, err := server.Bootstrap(ctx, st, server.BootstrapConfig{AdminTokens: []string{sourceAdminToken}, AdminPassword: "Correct-Horse-Battery-9"}); err != nil {
		t.Fatal(err)
	}
	err := st.Update(ctx, func(tx store.Tx) error {
		ann, err := tx.CreateUser(ctx, store.User{Name: "Ann", Email: "ann@example.com", RootRole: store.RoleViewer})
		if err != nil {
			return err
		}
		bob, err := tx.CreateUser(ctx, store.User{Name: "Bob", Email: "bob@example.com", RootRole: store.RoleViewer})
		if err != nil {
			return err
		}
		g, err := tx.CreateGroup(ctx, store.Group{Name: "release", Description: "ships things", MappingsSSO: []string{"idp-release"}, RootRole: store.RoleEditor})
		if err != nil {
			return err
		}
		if _, err := tx.CreateGroup(ctx, store.Group{Name: "empty"}); err != nil {
			return err
		}
		for _, u := range []int{ann.ID, bob.ID} {
			if err := tx.AddGroupMember(ctx, store.GroupMember{GroupID: g.ID, UserID: u}); err != nil {
				return err
			}
		}
		if err := tx.GrantProjectRole(ctx, store.ProjectAccess{Project: store.DefaultProject, GroupID: g.ID, RoleID: store.RoleMember}); err != nil {
			return err
		}
		if err := tx.GrantProjectRole(ctx, store.ProjectAccess{Project: store.DefaultProject, UserID: bob.ID, RoleID: store.RoleOwner}); err != nil {
			return err
		}
		if _, err := tx.SetChangeRequestConfig(ctx, store.ChangeRequestConfig{Project: store.DefaultProject, Environment: "production", Enabled: true, RequiredApprovals: 2}); err != nil {
			return err
		}
		_, err = tx.AppendEvent(ctx, store.Event{Type: "group-created", CreatedBy: "test"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return signalbox(t, st)
}

func TestGroupsProjectRolesAndChangeRequestsCarried(t *testing.T) {
	src := sourceWithGroups(t)
	st := openStore(t)
	opts := Options{URL: src, Token: sourceAdminToken, client: fast, Logf: t.Logf}
	if _, err := Run(t.Context(), st, opts); err != nil {
		t.Fatalf("migration: %v", err)
	}

	groups := read(t, st, func(ctx context.Context, r store.Reader) ([]store.Group, error) { return r.ListGroups(ctx) })
	byName := map[string]store.Group{}
	for _, g := range groups {
		byName[g.Name] = g
	}
	release, ok := byName["release"]
	if !ok || release.Description != "ships things" || release.RootRole != store.RoleEditor || !slices.Equal(release.MappingsSSO, []string{"idp-release"}) {
		t.Fatalf("groups %+v", groups)
	}
	if _, ok := byName["empty"]; !ok {
		t.Errorf("the group without members is missing: %+v", groups)
	}
	members := read(t, st, func(ctx context.Context, r store.Reader) ([]string, error) {
		ms, err := r.ListGroupMembers(ctx, release.ID)
		var emails []string
		for _, m := range ms {
			u, err := r.GetUser(ctx, m.UserID)
			if err != nil {
				return nil, err
			}
			emails = append(emails, u.Email)
		}
		slices.Sort(emails)
		return emails, err
	})
	if !slices.Equal(members, []string{"ann@example.com", "bob@example.com"}) {
		t.Errorf("members %v", members)
	}

	access := read(t, st, func(ctx context.Context, r store.Reader) ([]store.ProjectAccess, error) {
		return r.ListProjectAccess(ctx, store.AccessFilter{Project: store.DefaultProject})
	})
	var groupMember, bobOwner bool
	for _, a := range access {
		groupMember = groupMember || (a.GroupID == release.ID && a.RoleID == store.RoleMember)
		bobOwner = bobOwner || (a.UserID != 0 && a.RoleID == store.RoleOwner)
	}
	if !groupMember || !bobOwner {
		t.Errorf("project access %+v", access)
	}

	cr := read(t, st, func(ctx context.Context, r store.Reader) (store.ChangeRequestConfig, error) {
		return r.GetChangeRequestConfig(ctx, store.DefaultProject, "production")
	})
	if !cr.Enabled || cr.RequiredApprovals != 2 {
		t.Errorf("change requests in production: %+v", cr)
	}

	again, err := Run(t.Context(), st, Options{URL: src, Token: sourceAdminToken, Merge: true, client: fast, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if again.Changes != 0 {
		t.Errorf("a second run changed %d objects: %+v", again.Changes, again.Counts)
	}
}
