package server

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
)

func TestDependencies(t *testing.T) {
	fx := newFlagFixture(t)
	fx.addProject("other")
	for _, name := range []string{"parent", "child", "grandchild", "second"} {
		fx.create(name)
	}
	fx.ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "foreign"}).must(t, 201)
	deps := func(flag string) string { return defaultFeatures + "/" + flag + "/dependencies" }

	before := fx.lastEvent()
	fx.ts.admin("POST", deps("child"), map[string]any{"feature": "parent", "variants": []string{"blue"}}).must(t, 200)
	events := fx.expectEvents(before, "child", "feature-dependency-added")
	if string(events[0].Data) != `{"feature":"parent","enabled":true,"variants":["blue"]}` {
		t.Errorf("event data %s", events[0].Data)
	}

	tests := []struct {
		name   string
		child  string
		body   any
		detail string
	}{
		{"no parent", "second", map[string]any{}, "feature"},
		{"itself", "second", map[string]any{"feature": "second"}, "feature"},
		{"unknown parent", "second", map[string]any{"feature": "nope"}, "feature"},
		{"parent in another project", "second", map[string]any{"feature": "foreign"}, "feature"},
		{"parent that has parents", "grandchild", map[string]any{"feature": "child"}, "feature"},
		{"child that has children", "parent", map[string]any{"feature": "second"}, "feature"},
		{"variants of a disabled parent", "second", map[string]any{"feature": "parent", "enabled": false, "variants": []string{"x"}}, "variants"},
		{"empty variant name", "second", map[string]any{"feature": "parent", "variants": []string{""}}, "variants"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			mustError(t, fx.ts.admin("POST", deps(tt.child), tt.body), 400, "ValidationError", tt.detail)
			fx.expectEvents(before, "")
		})
	}
	mustError(t, fx.ts.admin("POST", deps("nope"), map[string]any{"feature": "parent"}), 404, "NotFoundError", "")
	mustError(t, fx.ts.request("POST", deps("second"), testAdminToken, `{"feature":"parent"}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")

	// Adding it again updates it.
	before = fx.lastEvent()
	fx.ts.admin("POST", deps("child"), map[string]any{"feature": "parent", "enabled": false}).must(t, 200)
	fx.expectEvents(before, "child", "feature-dependency-added")
	fx.ts.admin("POST", deps("child"), map[string]any{"feature": "second"}).must(t, 200)

	var list struct {
		Feature      string            `json:"feature"`
		Dependencies []adminDependency `json:"dependencies"`
	}
	fx.ts.admin("GET", deps("child"), nil).must(t, 200).Decode(t, &list)
	want := []adminDependency{{Feature: "parent", Enabled: false, Variants: []string{}}, {Feature: "second", Enabled: true, Variants: []string{}}}
	if diff := cmp.Diff(want, list.Dependencies); list.Feature != "child" || diff != "" {
		t.Errorf("dependencies of child (-want +got):\n%s", diff)
	}
	if p := fx.feature("parent"); !slices.Equal(p.Children, []string{"child"}) {
		t.Errorf("children of parent %v", p.Children)
	}
	if c := fx.feature("child"); len(c.Dependencies) != 2 {
		t.Errorf("feature view dependencies %+v", c.Dependencies)
	}
	var options []string
	fx.ts.admin("GET", defaultFeatures+"/grandchild/parents", nil).must(t, 200).Decode(t, &options)
	if diff := cmp.Diff([]string{"parent", "second"}, options); diff != "" {
		t.Errorf("parent options (-want +got):\n%s", diff)
	}
	var exists bool
	fx.ts.admin("GET", "/api/admin/projects/default/dependencies", nil).must(t, 200).Decode(t, &exists)
	if !exists {
		t.Error("dependencies exist in default")
	}
	fx.ts.admin("GET", "/api/admin/projects/other/dependencies", nil).must(t, 200).Decode(t, &exists)
	if exists {
		t.Error("no dependencies in other")
	}

	// SDKs see the dependencies.
	fx.ts.admin("POST", envPath("child", "development")+"/on", nil).must(t, 200)
	var payload clientapi.Features
	fx.ts.request("GET", "/api/client/features", testClientToken, nil).must(t, 200).Decode(t, &payload)
	i := slices.IndexFunc(payload.Features, func(f clientapi.Feature) bool { return f.Name == "child" })
	if i < 0 || len(payload.Features[i].Dependencies) != 2 || payload.Features[i].Dependencies[0].WantsEnabled() {
		t.Errorf("client payload dependencies %+v", payload.Features[i])
	}

	// A parent cannot be archived while its child is active.
	mustError(t, fx.ts.admin("DELETE", defaultFeatures+"/parent", nil), 400, "ValidationError", "")

	before = fx.lastEvent()
	fx.ts.admin("DELETE", deps("child")+"/second", nil).must(t, 200)
	fx.expectEvents(before, "child", "feature-dependency-removed")
	mustError(t, fx.ts.admin("DELETE", deps("child")+"/second", nil), 404, "NotFoundError", "")

	before = fx.lastEvent()
	fx.ts.admin("DELETE", deps("child"), nil).must(t, 200)
	fx.expectEvents(before, "child", "feature-dependencies-removed")
	before = fx.lastEvent()
	fx.ts.admin("DELETE", deps("child"), nil).must(t, 200)
	fx.expectEvents(before, "") // nothing left to remove
	fx.ts.admin("DELETE", defaultFeatures+"/parent", nil).must(t, http.StatusAccepted)
}

func TestParentVariantsAndArchiveRemovesDependencies(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("parent")
	fx.create("child")
	fx.ts.admin("PUT", envPath("parent", "development")+"/variants", []any{map[string]any{"name": "b", "weight": 1}, map[string]any{"name": "a", "weight": 1}}).must(t, 200)
	fx.addStrategy("parent", "production", map[string]any{"name": "default",
		"variants": []any{map[string]any{"name": "c", "weight": 1000, "weightType": "variable", "stickiness": "default"}}})
	var names []string
	fx.ts.admin("GET", defaultFeatures+"/parent/parent-variants", nil).must(t, 200).Decode(t, &names)
	if diff := cmp.Diff([]string{"a", "b", "c"}, names); diff != "" {
		t.Errorf("parent variants (-want +got):\n%s", diff)
	}

	fx.ts.admin("POST", defaultFeatures+"/child/dependencies", map[string]any{"feature": "parent"}).must(t, 200)
	before := fx.lastEvent()
	fx.ts.admin("DELETE", defaultFeatures+"/child", nil).must(t, http.StatusAccepted)
	fx.expectEvents(before, "child", "feature-dependencies-removed", "feature-archived")
	fx.ts.admin("POST", "/api/admin/archive/revive/child", nil).must(t, 200)
	if c := fx.feature("child"); len(c.Dependencies) != 0 {
		t.Errorf("revived flag kept its dependencies: %+v", c.Dependencies)
	}
}
