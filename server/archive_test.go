package server

import (
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
)

func archivedNames(t *testing.T, res response) []string {
	t.Helper()
	var list featureList
	res.must(t, http.StatusOK).Decode(t, &list)
	names := []string{}
	for _, f := range list.Features {
		if !f.Archived || f.ArchivedAt == nil {
			t.Errorf("listed as archived: %+v", f)
		}
		names = append(names, f.Name)
	}
	return names
}

func TestArchiveReviveDelete(t *testing.T) {
	fx := newFlagFixture(t)
	fx.addProject("other")
	fx.create("f")
	fx.ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "o", "tags": []map[string]string{{"type": "simple", "value": "tagged"}}}).must(t, 201)
	fx.ts.admin("POST", envPath("f", "development")+"/on", nil).must(t, 200)

	mustError(t, fx.ts.admin("DELETE", "/api/admin/archive/f", nil), 400, "ValidationError", "")
	mustError(t, fx.ts.admin("POST", "/api/admin/archive/revive/f", nil), 400, "ValidationError", "")

	before := fx.lastEvent()
	fx.ts.admin("DELETE", defaultFeatures+"/f", nil).must(t, http.StatusAccepted)
	fx.expectEvents(before, "f", "feature-archived")
	mustError(t, fx.ts.admin("GET", defaultFeatures+"/f", nil), 404, "NotFoundError", "")
	mustError(t, fx.ts.admin("DELETE", defaultFeatures+"/f", nil), 404, "NotFoundError", "")
	mustError(t, fx.ts.admin("POST", envPath("f", "development")+"/off", nil), 404, "NotFoundError", "")
	if names := archivedNames(t, fx.ts.admin("GET", "/api/admin/archive/features", nil)); !slices.Equal(names, []string{"f"}) {
		t.Errorf("archive %v", names)
	}
	if names := archivedNames(t, fx.ts.admin("GET", "/api/admin/archive/features/other", nil)); len(names) != 0 {
		t.Errorf("archive of other %v", names)
	}
	mustError(t, fx.ts.admin("GET", "/api/admin/archive/features/nope", nil), 404, "NotFoundError", "")
	var payload clientapi.Features
	fx.ts.request("GET", "/api/client/features", testClientToken, nil).must(t, 200).Decode(t, &payload)
	if slices.ContainsFunc(payload.Features, func(f clientapi.Feature) bool { return f.Name == "f" }) {
		t.Error("an archived flag is served to SDKs")
	}

	before = fx.lastEvent()
	fx.ts.admin("POST", "/api/admin/archive/revive/f", nil).must(t, 200)
	fx.expectEvents(before, "f", "feature-revived")
	f := fx.feature("f")
	if f.Archived || f.ArchivedAt != nil || f.Environments[0].Enabled || len(f.Environments[0].Strategies) != 1 {
		t.Errorf("revived flag must be off everywhere and keep its strategies: %+v", f)
	}
	mustError(t, fx.ts.admin("POST", "/api/admin/archive/revive/nope", nil), 404, "NotFoundError", "")

	fx.ts.admin("DELETE", "/api/admin/projects/other/features/o", nil).must(t, http.StatusAccepted)
	before = fx.lastEvent()
	fx.ts.admin("DELETE", "/api/admin/archive/o", nil).must(t, 200)
	events := fx.expectEvents(before, "o", "feature-deleted")
	if events[0].PreData == nil || len(events[0].Tags) != 1 || events[0].Project != "other" {
		t.Errorf("deleted event %+v", events[0])
	}
	mustError(t, fx.ts.admin("DELETE", "/api/admin/archive/o", nil), 404, "NotFoundError", "")
	fx.ts.admin("POST", defaultFeatures, map[string]any{"name": "o"}).must(t, 201) // the name is free again
}

func TestBulkArchive(t *testing.T) {
	fx := newFlagFixture(t)
	fx.addProject("other")
	for _, name := range []string{"a", "b", "c"} {
		fx.create(name)
	}
	fx.ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "o"}).must(t, 201)
	fx.ts.admin("POST", defaultFeatures+"/b/dependencies", map[string]any{"feature": "a"}).must(t, 200)
	project := "/api/admin/projects/default"

	var validation struct {
		HasDeletedDependencies   bool     `json:"hasDeletedDependencies"`
		ParentsWithChildFeatures []string `json:"parentsWithChildFeatures"`
	}
	fx.ts.admin("POST", project+"/archive/validate", map[string]any{"features": []string{"a"}}).must(t, 200).Decode(t, &validation)
	if validation.HasDeletedDependencies || !slices.Equal(validation.ParentsWithChildFeatures, []string{"a"}) {
		t.Errorf("validate a: %+v", validation)
	}
	fx.ts.admin("POST", project+"/archive/validate", map[string]any{"features": []string{"a", "b"}}).must(t, 200).Decode(t, &validation)
	if !validation.HasDeletedDependencies || len(validation.ParentsWithChildFeatures) != 0 {
		t.Errorf("validate a, b: %+v", validation)
	}

	bad := []struct {
		name   string
		route  string
		body   any
		status int
	}{
		{"no features", "/archive", map[string]any{}, 400},
		{"a parent without its child", "/archive", map[string]any{"features": []string{"a"}}, 400},
		{"another project's flag", "/archive", map[string]any{"features": []string{"c", "o"}}, 400},
		{"unknown flag", "/archive", map[string]any{"features": []string{"c", "nope"}}, 404},
		{"revive an active flag", "/revive", map[string]any{"features": []string{"c"}}, 400},
		{"delete an active flag", "/delete", map[string]any{"features": []string{"c"}}, 400},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			if res := fx.ts.admin("POST", project+tt.route, tt.body); res.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", res.Status, tt.status, res.Body)
			}
			fx.expectEvents(before, "")
		})
	}
	mustError(t, fx.ts.admin("POST", "/api/admin/projects/nope/archive", map[string]any{"features": []string{}}), 404, "NotFoundError", "")

	before := fx.lastEvent()
	fx.ts.admin("POST", project+"/archive", map[string]any{"features": []string{"a", "b", "c", "c"}}).must(t, http.StatusAccepted)
	var types []string
	for _, e := range fx.eventsAfter(before) {
		types = append(types, e.Type+":"+e.FeatureName)
	}
	want := []string{"feature-archived:a", "feature-dependencies-removed:b", "feature-archived:b", "feature-archived:c"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("bulk archive events (-want +got):\n%s", diff)
	}
	mustError(t, fx.ts.admin("POST", project+"/archive", map[string]any{"features": []string{"a"}}), 400, "ValidationError", "features[0]")

	before = fx.lastEvent()
	fx.ts.admin("POST", project+"/revive", map[string]any{"features": []string{"a", "b"}}).must(t, 200)
	fx.expectEvents(before, "", "feature-revived", "feature-revived")

	before = fx.lastEvent()
	fx.ts.admin("POST", project+"/delete", map[string]any{"features": []string{"c"}}).must(t, 200)
	fx.expectEvents(before, "c", "feature-deleted")
	if names := archivedNames(t, fx.ts.admin("GET", "/api/admin/archive/features/default", nil)); len(names) != 0 {
		t.Errorf("archive after bulk delete %v", names)
	}
}
