package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/signalbox/signalbox/store"
)

func testSeed(t *testing.T, s store.Store) {
	ctx := t.Context()
	view(t, s, func(r store.Reader) error {
		p, err := r.GetProject(ctx, store.DefaultProject)
		if err != nil {
			return err
		}
		if p.CreatedAt.IsZero() {
			t.Error("default project has no CreatedAt")
		}

		envs, err := r.ListEnvironments(ctx)
		if err != nil {
			return err
		}
		diff(t, "environments", []store.Environment{
			{Name: store.EnvDevelopment, Type: "development", Enabled: true, SortOrder: 100},
			{Name: store.EnvProduction, Type: "production", Enabled: true, SortOrder: 200},
		}, envs, cmpopts.IgnoreFields(store.Environment{}, "CreatedAt"))

		pes, err := r.ListProjectEnvironments(ctx, store.DefaultProject)
		if err != nil {
			return err
		}
		diff(t, "default project environments", []store.ProjectEnvironment{
			{Project: "default", Environment: "development"},
			{Project: "default", Environment: "production"},
		}, pes)

		types, err := r.ListFeatureTypes(ctx)
		if err != nil {
			return err
		}
		lifetimes := map[string]*int{}
		for _, ft := range types {
			lifetimes[ft.ID] = ft.LifetimeDays
			if ft.Name == "" || ft.Description == "" {
				t.Errorf("flag type %q lacks a name or description", ft.ID)
			}
		}
		diff(t, "flag type lifetimes", map[string]*int{
			"release": ptr(40), "experiment": ptr(40), "operational": ptr(7), "kill-switch": nil, "permission": nil,
			"sunset": ptr(40),
		}, lifetimes)
		var ids []string
		for _, ft := range types {
			ids = append(ids, ft.ID)
		}
		diff(t, "flag type ids", store.FeatureTypes, ids)

		tt, err := r.GetTagType(ctx, store.TagTypeSimple)
		if err != nil {
			return err
		}
		if tt.Name != "simple" {
			t.Errorf("tag type = %+v", tt)
		}

		roles, err := r.ListRoles(ctx)
		if err != nil {
			return err
		}
		diff(t, "roles", []store.Role{
			{ID: store.RoleAdmin, Name: "Admin", Type: store.RoleTypeRoot},
			{ID: store.RoleEditor, Name: "Editor", Type: store.RoleTypeRoot},
			{ID: store.RoleViewer, Name: "Viewer", Type: store.RoleTypeRoot},
			{ID: store.RoleOwner, Name: "Owner", Type: store.RoleTypeProject},
			{ID: store.RoleMember, Name: "Member", Type: store.RoleTypeProject},
		}, roles, cmpopts.IgnoreFields(store.Role{}, "Description"))

		defs, err := r.ListStrategyDefinitions(ctx)
		if err != nil {
			return err
		}
		params := map[string][]string{}
		for _, d := range defs {
			if d.Editable {
				t.Errorf("built-in strategy %q is editable", d.Name)
			}
			names := []string{}
			for _, p := range d.Parameters {
				names = append(names, p.Name)
			}
			params[d.Name] = names
		}
		diff(t, "built-in strategy parameters", map[string][]string{
			"default":                 {},
			"userWithId":              {"userIds"},
			"gradualRolloutUserId":    {"percentage", "groupId"},
			"gradualRolloutSessionId": {"percentage", "groupId"},
			"gradualRolloutRandom":    {"percentage"},
			"flexibleRollout":         {"rollout", "stickiness", "groupId"},
			"remoteAddress":           {"IPs"},
			"applicationHostname":     {"hostNames"},
		}, params)
		if len(defs) != len(store.BuiltinStrategies) {
			t.Errorf("%d strategy definitions, want %d", len(defs), len(store.BuiltinStrategies))
		}

		fields, err := r.ListContextFields(ctx)
		if err != nil {
			return err
		}
		if len(fields) == 0 {
			t.Error("no context fields seeded")
		}

		rev, err := r.Revision(ctx)
		if err != nil {
			return err
		}
		if rev != 0 {
			t.Errorf("Revision of a new store = %d, want 0", rev)
		}
		return nil
	})
	if rev := get(t, s, func(ctx context.Context, r store.Reader) (int64, error) { return r.Revision(ctx) }); rev != 0 {
		t.Errorf("Store.Revision of a new store = %d, want 0", rev)
	}
}
