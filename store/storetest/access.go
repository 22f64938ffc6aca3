package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testProjectAccess(t *testing.T, s store.Store) {
	ctx := t.Context()
	var ann, bob store.User
	var team store.Group
	update(t, s, func(tx store.Tx) error {
		var err error
		if _, err = tx.CreateProject(ctx, store.Project{ID: "web", Name: "Web"}); err != nil {
			return err
		}
		if ann, err = tx.CreateUser(ctx, store.User{Username: "ann", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		if bob, err = tx.CreateUser(ctx, store.User{Username: "bob", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		if team, err = tx.CreateGroup(ctx, store.Group{Name: "team"}); err != nil {
			return err
		}
		return tx.AddGroupMember(ctx, store.GroupMember{GroupID: team.ID, UserID: bob.ID})
	})

	annOwnsWeb := store.ProjectAccess{Project: "web", UserID: ann.ID, RoleID: store.RoleOwner, CreatedBy: "admin", AddedAt: t0}
	annMemberDefault := store.ProjectAccess{Project: "default", UserID: ann.ID, RoleID: store.RoleMember, CreatedBy: "admin", AddedAt: t0}
	bobMemberDefault := store.ProjectAccess{Project: "default", UserID: bob.ID, RoleID: store.RoleMember, CreatedBy: "admin", AddedAt: t0}
	teamMemberWeb := store.ProjectAccess{Project: "web", GroupID: team.ID, RoleID: store.RoleMember, CreatedBy: "admin", AddedAt: t0}
	teamOwnerDefault := store.ProjectAccess{Project: "default", GroupID: team.ID, RoleID: store.RoleOwner, CreatedBy: "admin", AddedAt: t0}
	update(t, s, func(tx store.Tx) error {
		for _, a := range []store.ProjectAccess{annOwnsWeb, annMemberDefault, bobMemberDefault, teamMemberWeb, teamOwnerDefault} {
			if err := tx.GrantProjectRole(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})

	list := func(f store.AccessFilter) []store.ProjectAccess {
		t.Helper()
		return get(t, s, func(ctx context.Context, r store.Reader) ([]store.ProjectAccess, error) {
			return r.ListProjectAccess(ctx, f)
		})
	}
	diff(t, "all grants", []store.ProjectAccess{annMemberDefault, bobMemberDefault, annOwnsWeb, teamOwnerDefault, teamMemberWeb},
		list(store.AccessFilter{}))
	diff(t, "grants in web", []store.ProjectAccess{annOwnsWeb, teamMemberWeb}, list(store.AccessFilter{Project: "web"}))
	diff(t, "ann's direct grants", []store.ProjectAccess{annMemberDefault, annOwnsWeb}, list(store.AccessFilter{UserID: ann.ID}))
	diff(t, "bob's direct grants", []store.ProjectAccess{bobMemberDefault}, list(store.AccessFilter{UserID: bob.ID}))
	diff(t, "team's grants in default", []store.ProjectAccess{teamOwnerDefault}, list(store.AccessFilter{Project: "default", GroupID: team.ID}))
	diff(t, "bob's or team's grants", []store.ProjectAccess{bobMemberDefault, teamOwnerDefault, teamMemberWeb},
		list(store.AccessFilter{UserID: bob.ID, GroupID: team.ID}))

	roles := func(user int, project string) []store.ProjectAccess {
		t.Helper()
		return get(t, s, func(ctx context.Context, r store.Reader) ([]store.ProjectAccess, error) {
			return r.UserProjectRoles(ctx, user, project)
		})
	}
	// Bob holds Member of default himself, Owner of default and Member of
	// web through his group.
	diff(t, "bob's roles", []store.ProjectAccess{teamOwnerDefault, bobMemberDefault, teamMemberWeb}, roles(bob.ID, ""))
	diff(t, "bob's roles in web", []store.ProjectAccess{teamMemberWeb}, roles(bob.ID, "web"))
	diff(t, "ann's roles in web", []store.ProjectAccess{annOwnsWeb}, roles(ann.ID, "web"))
	diff(t, "roles of nobody", []store.ProjectAccess{}, roles(9999, ""))

	runErrCases(t, s, []errCase{
		{"grant twice", func(ctx context.Context, tx store.Tx) error { return tx.GrantProjectRole(ctx, annOwnsWeb) }, apierr.NameExists},
		{"grant to group twice", func(ctx context.Context, tx store.Tx) error { return tx.GrantProjectRole(ctx, teamMemberWeb) }, apierr.NameExists},
		{"grant a root role", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "web", UserID: bob.ID, RoleID: store.RoleEditor})
		}, apierr.BadData},
		{"grant to nobody", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "web", RoleID: store.RoleOwner})
		}, apierr.BadData},
		{"grant to user and group at once", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "web", UserID: bob.ID, GroupID: team.ID, RoleID: store.RoleOwner})
		}, apierr.BadData},
		{"grant unknown role", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "web", UserID: bob.ID, RoleID: 99})
		}, apierr.NotFound},
		{"grant in unknown project", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "nope", UserID: bob.ID, RoleID: store.RoleOwner})
		}, apierr.NotFound},
		{"grant group in unknown project", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "nope", GroupID: team.ID, RoleID: store.RoleOwner})
		}, apierr.NotFound},
		{"grant to unknown user", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "web", UserID: 9999, RoleID: store.RoleOwner})
		}, apierr.NotFound},
		{"grant to unknown group", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "web", GroupID: 9999, RoleID: store.RoleOwner})
		}, apierr.NotFound},
		{"revoke what is not held", func(ctx context.Context, tx store.Tx) error {
			return tx.RevokeProjectRole(ctx, store.ProjectAccess{Project: "web", UserID: bob.ID, RoleID: store.RoleOwner})
		}, apierr.NotFound},
		{"revoke from nobody", func(ctx context.Context, tx store.Tx) error {
			return tx.RevokeProjectRole(ctx, store.ProjectAccess{Project: "web", RoleID: store.RoleOwner})
		}, apierr.BadData},
	})

	update(t, s, func(tx store.Tx) error {
		if err := tx.RevokeProjectRole(ctx, annMemberDefault); err != nil {
			return err
		}
		return tx.RevokeProjectRole(ctx, teamOwnerDefault)
	})
	diff(t, "bob's roles after revoking the team's", []store.ProjectAccess{bobMemberDefault, teamMemberWeb}, roles(bob.ID, ""))
	diff(t, "ann's roles after revoking", []store.ProjectAccess{annOwnsWeb}, roles(ann.ID, ""))

	// Leaving the group ends its roles for the user; deleting the group
	// ends its grants.
	update(t, s, func(tx store.Tx) error { return tx.RemoveGroupMember(ctx, team.ID, bob.ID) })
	diff(t, "bob's roles outside the team", []store.ProjectAccess{bobMemberDefault}, roles(bob.ID, ""))
	update(t, s, func(tx store.Tx) error { return tx.DeleteGroup(ctx, team.ID) })
	diff(t, "grants after deleting the team", []store.ProjectAccess{bobMemberDefault, annOwnsWeb}, list(store.AccessFilter{}))

	// A deleted user keeps no roles; deleting a project ends its grants.
	update(t, s, func(tx store.Tx) error { return tx.DeleteUser(ctx, bob.ID) })
	diff(t, "deleted user's roles", []store.ProjectAccess{}, roles(bob.ID, ""))
	update(t, s, func(tx store.Tx) error { return tx.DeleteProject(ctx, "web") })
	diff(t, "grants after deleting web", []store.ProjectAccess{}, list(store.AccessFilter{}))
	runErrCases(t, s, []errCase{
		{"grant to deleted user", func(ctx context.Context, tx store.Tx) error {
			return tx.GrantProjectRole(ctx, store.ProjectAccess{Project: "default", UserID: bob.ID, RoleID: store.RoleOwner})
		}, apierr.NotFound},
	})
}
