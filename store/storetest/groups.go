package storetest

import (
	"context"
	"testing"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func testGroups(t *testing.T, s store.Store) {
	ctx := t.Context()
	dx := store.Group{
		Name: "DX team", Description: "Developer experience", MappingsSSO: []string{"sso-dx", "sso-all"},
		RootRole: store.RoleEditor, CreatedBy: "admin", CreatedAt: t0,
	}
	var bare store.Group
	update(t, s, func(tx store.Tx) error {
		got, err := tx.CreateGroup(ctx, dx)
		if err != nil {
			return err
		}
		dx.ID = got.ID
		diff(t, "created group", dx, got)
		bare, err = tx.CreateGroup(ctx, store.Group{Name: "bare"})
		if bare.ID <= dx.ID || bare.CreatedAt.IsZero() || bare.RootRole != 0 || bare.MappingsSSO == nil {
			t.Errorf("second group: %+v", bare)
		}
		return err
	})
	diff(t, "GetGroup", dx, get(t, s, func(ctx context.Context, r store.Reader) (store.Group, error) {
		return r.GetGroup(ctx, dx.ID)
	}))
	diff(t, "ListGroups", []store.Group{dx, bare}, get(t, s, func(ctx context.Context, r store.Reader) ([]store.Group, error) {
		return r.ListGroups(ctx)
	}))

	// Update replaces every field but CreatedBy and CreatedAt; a zero root
	// role clears it.
	dx.Name, dx.Description, dx.MappingsSSO, dx.RootRole = "DX", "", nil, 0
	update(t, s, func(tx store.Tx) error {
		got, err := tx.UpdateGroup(ctx, store.Group{ID: dx.ID, Name: dx.Name, CreatedBy: "ignored", CreatedAt: t0.Add(5e9)})
		diff(t, "updated group", dx, got)
		return err
	})
	// The old name is free again, names are compared exactly.
	update(t, s, func(tx store.Tx) error {
		_, err := tx.CreateGroup(ctx, store.Group{Name: "DX team"})
		if err != nil {
			return err
		}
		_, err = tx.CreateGroup(ctx, store.Group{Name: "dx"})
		return err
	})

	runErrCases(t, s, []errCase{
		{"create taken name", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateGroup(ctx, store.Group{Name: "DX"})
			return err
		}, apierr.NameExists},
		{"rename to taken name", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateGroup(ctx, store.Group{ID: bare.ID, Name: "DX team"})
			return err
		}, apierr.NameExists},
		{"create with unknown role", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.CreateGroup(ctx, store.Group{Name: "roleless", RootRole: 99})
			return err
		}, apierr.NotFound},
		{"update to unknown role", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateGroup(ctx, store.Group{ID: bare.ID, Name: "bare", RootRole: 99})
			return err
		}, apierr.NotFound},
		{"update missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.UpdateGroup(ctx, store.Group{ID: 9999, Name: "ghost"})
			return err
		}, apierr.NotFound},
		{"get missing", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.GetGroup(ctx, 9999)
			return err
		}, apierr.NotFound},
		{"delete missing", func(ctx context.Context, tx store.Tx) error { return tx.DeleteGroup(ctx, 9999) }, apierr.NotFound},
	})
	// The failed updates changed nothing.
	if got := get(t, s, func(ctx context.Context, r store.Reader) (store.Group, error) { return r.GetGroup(ctx, bare.ID) }); got.Name != "bare" || got.RootRole != 0 {
		t.Errorf("group after failed updates: %+v", got)
	}

	update(t, s, func(tx store.Tx) error { return tx.DeleteGroup(ctx, bare.ID) })
	if k := readKind(t, s, func(ctx context.Context, r store.Reader) error {
		_, err := r.GetGroup(ctx, bare.ID)
		return err
	}); k != apierr.NotFound {
		t.Errorf("deleted group: error kind %q", k)
	}
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.Group, error) { return r.ListGroups(ctx) }); len(got) != 3 {
		t.Errorf("groups after delete: %+v", got)
	}
}

func testGroupMembers(t *testing.T, s store.Store) {
	ctx := t.Context()
	var ann, bob store.User
	var red, blue store.Group
	update(t, s, func(tx store.Tx) error {
		var err error
		if ann, err = tx.CreateUser(ctx, store.User{Username: "ann", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		if bob, err = tx.CreateUser(ctx, store.User{Username: "bob", RootRole: store.RoleViewer}); err != nil {
			return err
		}
		if red, err = tx.CreateGroup(ctx, store.Group{Name: "red", RootRole: store.RoleEditor}); err != nil {
			return err
		}
		blue, err = tx.CreateGroup(ctx, store.Group{Name: "blue"})
		return err
	})
	update(t, s, func(tx store.Tx) error {
		for _, m := range []store.GroupMember{
			{GroupID: red.ID, UserID: bob.ID, CreatedBy: "admin", JoinedAt: t0},
			{GroupID: red.ID, UserID: ann.ID, CreatedBy: "admin", JoinedAt: t0},
			{GroupID: blue.ID, UserID: ann.ID},
		} {
			if err := tx.AddGroupMember(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})
	members := get(t, s, func(ctx context.Context, r store.Reader) ([]store.GroupMember, error) {
		return r.ListGroupMembers(ctx, red.ID)
	})
	diff(t, "red members", []store.GroupMember{
		{GroupID: red.ID, UserID: ann.ID, CreatedBy: "admin", JoinedAt: t0},
		{GroupID: red.ID, UserID: bob.ID, CreatedBy: "admin", JoinedAt: t0},
	}, members)
	all := get(t, s, func(ctx context.Context, r store.Reader) ([]store.GroupMember, error) {
		return r.ListGroupMembers(ctx, 0)
	})
	if len(all) != 3 || all[2].GroupID != blue.ID || all[2].JoinedAt.IsZero() {
		t.Errorf("all members: %+v", all)
	}
	groupIDs := func(user int) []int {
		t.Helper()
		var ids []int
		for _, g := range get(t, s, func(ctx context.Context, r store.Reader) ([]store.Group, error) { return r.ListUserGroups(ctx, user) }) {
			ids = append(ids, g.ID)
		}
		return ids
	}
	diff(t, "ann's groups", []int{red.ID, blue.ID}, groupIDs(ann.ID))
	diff(t, "nobody's groups", []int(nil), groupIDs(9999))

	runErrCases(t, s, []errCase{
		{"add twice", func(ctx context.Context, tx store.Tx) error {
			return tx.AddGroupMember(ctx, store.GroupMember{GroupID: red.ID, UserID: ann.ID})
		}, apierr.NameExists},
		{"add unknown user", func(ctx context.Context, tx store.Tx) error {
			return tx.AddGroupMember(ctx, store.GroupMember{GroupID: red.ID, UserID: 9999})
		}, apierr.NotFound},
		{"add to unknown group", func(ctx context.Context, tx store.Tx) error {
			return tx.AddGroupMember(ctx, store.GroupMember{GroupID: 9999, UserID: ann.ID})
		}, apierr.NotFound},
		{"remove non-member", func(ctx context.Context, tx store.Tx) error {
			return tx.RemoveGroupMember(ctx, blue.ID, bob.ID)
		}, apierr.NotFound},
		{"members of unknown group", func(ctx context.Context, tx store.Tx) error {
			_, err := tx.ListGroupMembers(ctx, 9999)
			return err
		}, apierr.NotFound},
	})

	update(t, s, func(tx store.Tx) error { return tx.RemoveGroupMember(ctx, red.ID, bob.ID) })
	diff(t, "bob's groups after removal", []int(nil), groupIDs(bob.ID))

	// Deleted users drop out of their groups and cannot be added.
	update(t, s, func(tx store.Tx) error { return tx.DeleteUser(ctx, ann.ID) })
	diff(t, "deleted user's groups", []int(nil), groupIDs(ann.ID))
	if got := get(t, s, func(ctx context.Context, r store.Reader) ([]store.GroupMember, error) {
		return r.ListGroupMembers(ctx, red.ID)
	}); len(got) != 0 {
		t.Errorf("red members after deleting ann: %+v", got)
	}
	runErrCases(t, s, []errCase{
		{"add a removed member again", func(ctx context.Context, tx store.Tx) error {
			return tx.AddGroupMember(ctx, store.GroupMember{GroupID: red.ID, UserID: bob.ID})
		}, ""},
		{"add deleted user", func(ctx context.Context, tx store.Tx) error {
			return tx.AddGroupMember(ctx, store.GroupMember{GroupID: red.ID, UserID: ann.ID})
		}, apierr.NotFound},
	})

	// Deleting a group ends its memberships.
	update(t, s, func(tx store.Tx) error { return tx.DeleteGroup(ctx, red.ID) })
	diff(t, "bob's groups after deleting red", []int(nil), groupIDs(bob.ID))
}
