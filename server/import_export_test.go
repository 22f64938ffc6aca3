package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/store"
)

// seedExportSource builds, through the admin API, a project "source" whose
// export exercises every part of the document: constraints on a context
// field with legal values and on a built-in one, a segment, strategy
// variants whose weights depend on the order they were given in, a
// disabled strategy with a title, flag variants with overrides and
// payloads, tags of two types, a dependency with variants, a stale flag
// and a flag without strategies.
func seedExportSource(t *testing.T, ts *testServer) {
	t.Helper()
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "source", "name": "Source"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/context", map[string]any{"name": "region", "description": "Where the user is", "stickiness": true,
		"legalValues": []map[string]string{{"value": "eu", "description": "Europe"}, {"value": "us"}}}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/segments", map[string]any{"name": "beta-users",
		"constraints": []map[string]any{{"contextName": "userId", "operator": "IN", "values": []string{"1", "2"}}}}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/tag-types", map[string]any{"name": "team", "description": "Owning team", "icon": "people"}).must(t, http.StatusCreated)
	var seg []struct{ ID int }
	var segs struct{ Segments []struct{ ID int } }
	ts.admin("GET", "/api/admin/segments", nil).must(t, http.StatusOK).Decode(t, &segs)
	seg = segs.Segments

	const features = "/api/admin/projects/source/features"
	ts.admin("POST", features, map[string]any{"name": "checkout", "description": "New checkout", "impressionData": true,
		"tags": []store.Tag{{Type: "simple", Value: "beta"}, {Type: "team", Value: "payments"}}}).must(t, http.StatusCreated)
	ts.admin("POST", features, map[string]any{"name": "checkout-child", "type": "experiment"}).must(t, http.StatusCreated)
	ts.admin("POST", features, map[string]any{"name": "dormant", "type": "kill-switch"}).must(t, http.StatusCreated)
	ts.admin("PUT", features+"/checkout-child", map[string]any{"stale": true}).must(t, http.StatusOK)

	dev := func(flag string) string { return features + "/" + flag + "/environments/development" }
	ts.admin("POST", dev("checkout")+"/strategies", map[string]any{
		"name": "flexibleRollout", "parameters": map[string]string{"rollout": "50", "stickiness": "region", "groupId": "checkout"},
		"constraints": []map[string]any{{"contextName": "region", "operator": "IN", "values": []string{"eu"}}},
		"segments":    []int{seg[0].ID},
		"variants": []map[string]any{ // c, b, a: the remainder goes to c, the first one given
			{"name": "c", "weight": 0, "weightType": "variable", "stickiness": "default"},
			{"name": "b", "weight": 0, "weightType": "variable", "stickiness": "default"},
			{"name": "a", "weight": 0, "weightType": "variable", "stickiness": "default", "payload": map[string]string{"type": "string", "value": "A"}},
		},
	}).must(t, http.StatusOK)
	ts.admin("POST", dev("checkout")+"/strategies", map[string]any{"name": "default", "title": "Everyone", "disabled": true}).must(t, http.StatusOK)
	ts.admin("PUT", dev("checkout")+"/variants", []map[string]any{
		{"name": "blue", "weight": 0, "weightType": "variable", "stickiness": "default", "payload": map[string]string{"type": "json", "value": `{"x":1}`},
			"overrides": []map[string]any{{"contextName": "userId", "values": []string{"7"}}}},
		{"name": "green", "weight": 200, "weightType": "fix", "stickiness": "region"},
	}).must(t, http.StatusOK)
	ts.admin("POST", dev("checkout")+"/on", nil).must(t, http.StatusOK)
	ts.admin("POST", dev("checkout-child")+"/strategies", map[string]any{"name": "userWithId", "parameters": map[string]string{"userIds": "1,2"},
		"constraints": []map[string]any{{"contextName": "userId", "operator": "NOT_IN", "values": []string{"3"}}}}).must(t, http.StatusOK)
	ts.admin("POST", features+"/checkout-child/dependencies", map[string]any{"feature": "checkout", "variants": []string{"a"}}).must(t, http.StatusOK)
	ts.admin("POST", dev("dormant")+"/strategies", map[string]any{"name": "default"}).must(t, http.StatusOK) // only in development
}

// exportOf exports and decodes.
func exportOf(t *testing.T, ts *testServer, q map[string]any) exportDoc {
	t.Helper()
	var doc exportDoc
	ts.admin("POST", featuresBatchPath+"/export", q).must(t, http.StatusOK).Decode(t, &doc)
	return doc
}

// normalizedExport blanks what legitimately differs between instances: the
// flags' project, strategy ids and segment ids (replaced by the segment's
// rank by name, in the strategies too).
func normalizedExport(doc exportDoc) exportDoc {
	names := map[int]string{}
	var sorted []string
	for _, sg := range doc.Segments {
		names[sg.ID] = sg.Name
		sorted = append(sorted, sg.Name)
	}
	slices.Sort(sorted)
	rank := func(id int) int { return slices.Index(sorted, names[id]) }
	out := doc
	out.Features = slices.Clone(doc.Features)
	for i := range out.Features {
		out.Features[i].Project = ""
	}
	out.FeatureStrategies = slices.Clone(doc.FeatureStrategies)
	for i := range out.FeatureStrategies {
		st := &out.FeatureStrategies[i]
		st.ID = ""
		st.Segments = slices.Clone(st.Segments)
		for j, id := range st.Segments {
			st.Segments[j] = rank(id)
		}
	}
	out.Segments = slices.Clone(doc.Segments)
	for i := range out.Segments {
		out.Segments[i].ID = rank(out.Segments[i].ID)
	}
	slices.SortFunc(out.Segments, func(a, b exportSegment) int { return a.ID - b.ID })
	return out
}

func TestImportExportRoundTrip(t *testing.T) {
	importRoundTrip(t, newTestServer(t), newTestServer(t))
}

// importRoundTrip exports a project from a, imports it into an empty
// project of b, exports that and requires the same document.
func importRoundTrip(t *testing.T, a, b *testServer) {
	seedExportSource(t, a)
	first := exportOf(t, a, map[string]any{"project": "source", "environment": "development"})

	var names []string
	for _, f := range first.Features {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"checkout", "checkout-child", "dormant"}) || len(first.FeatureStrategies) != 4 ||
		len(first.ContextFields) != 2 || len(first.Segments) != 1 || len(first.FeatureTags) != 2 || len(first.TagTypes) != 2 ||
		len(first.Dependencies) != 1 || len(first.FeatureEnvironments) != 3 {
		data, _ := json.MarshalIndent(first, "", " ")
		t.Fatalf("unexpected export:\n%s", data)
	}

	// b has the segment (under another id) but not the context field, the
	// tag type or the project's flags.
	b.admin("POST", "/api/admin/segments", map[string]any{"name": "filler", "constraints": []any{}}).must(t, http.StatusCreated)
	b.admin("POST", "/api/admin/segments", map[string]any{"name": "beta-users",
		"constraints": []map[string]any{{"contextName": "userId", "operator": "IN", "values": []string{"1", "2"}}}}).must(t, http.StatusCreated)
	b.admin("POST", "/api/admin/projects", map[string]any{"id": "target", "name": "Target"}).must(t, http.StatusCreated)
	body := map[string]any{"project": "target", "environment": "development", "data": first}

	c := newOAChecker(t, b)
	mark := auditMark(t, b)
	var report importReport
	c.do("POST", featuresBatchPath+"/validate", testAdminToken, body, http.StatusOK).Decode(t, &report)
	if diff := cmp.Diff(importReport{Errors: []importItem{}, Warnings: []importItem{}, Permissions: []importItem{}}, report); diff != "" {
		t.Errorf("validation (-want +got):\n%s", diff)
	}
	mustNoAudit(t, b, mark)

	c.do("POST", featuresBatchPath+"/import", testAdminToken, body, http.StatusOK)
	var types []string
	for _, e := range auditAfter(t, b, mark) {
		types = append(types, e.Type+" "+e.FeatureName)
	}
	want := []string{"tag-type-created ", "context-field-created ", "feature-environment-enabled checkout", "feature-import checkout",
		"feature-import checkout-child", "feature-import dormant", "features-imported "}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("import events (-want +got):\n%s", diff)
	}

	second := exportOf(t, b, map[string]any{"project": "target", "environment": "development"})
	if diff := cmp.Diff(normalizedExport(first), normalizedExport(second)); diff != "" {
		t.Errorf("export after import differs (-first +second):\n%s", diff)
	}
	for _, f := range second.Features {
		if f.Project != "target" {
			t.Errorf("flag %s imported into %s", f.Name, f.Project)
		}
	}

	// Importing the same document again overwrites, with a warning, and
	// leaves the same configuration.
	c.do("POST", featuresBatchPath+"/validate", testAdminToken, body, http.StatusOK).Decode(t, &report)
	if len(report.Errors) != 0 || len(report.Warnings) != 1 || report.Warnings[0].Message != msgOverwrite ||
		!slices.Equal(report.Warnings[0].AffectedItems, []string{"checkout", "checkout-child", "dormant"}) {
		t.Errorf("second validation: %+v", report)
	}
	c.do("POST", featuresBatchPath+"/import", testAdminToken, body, http.StatusOK)
	third := exportOf(t, b, map[string]any{"project": "target", "environment": "development"})
	if diff := cmp.Diff(normalizedExport(second), normalizedExport(third)); diff != "" {
		t.Errorf("re-import changed the configuration (-before +after):\n%s", diff)
	}
}

func TestExport(t *testing.T) { exportFlow(t, newTestServer(t)) }

func exportFlow(t *testing.T, ts *testServer) {
	seedExportSource(t, ts)
	ts.admin("POST", defaultFeatures, map[string]any{"name": "elsewhere", "tags": []store.Tag{{Type: "team", Value: "beta"}}}).must(t, http.StatusCreated)
	ts.admin("POST", defaultFeatures, map[string]any{"name": "gone"}).must(t, http.StatusCreated)
	ts.admin("DELETE", defaultFeatures+"/gone", nil).must(t, http.StatusAccepted)
	flagNames := func(want ...string) func(t *testing.T, res response) {
		return func(t *testing.T, res response) {
			t.Helper()
			var doc exportDoc
			res.Decode(t, &doc)
			var got []string
			for _, f := range doc.Features {
				got = append(got, f.Name)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("exported flags (-want +got):\n%s", diff)
			}
		}
	}
	const export = featuresBatchPath + "/export"
	ev := []string{"features-exported"}
	runSteps(t, ts, []apiStep{
		{name: "by project", method: "POST", path: export, body: map[string]any{"project": "source", "environment": "production"}, status: 200,
			events: ev, check: func(t *testing.T, res response) {
				flagNames("checkout", "checkout-child", "dormant")(t, res)
				var doc exportDoc
				res.Decode(t, &doc)
				// Production has no strategies: nothing else is referred to.
				if len(doc.FeatureStrategies) != 0 || len(doc.ContextFields) != 0 || len(doc.Segments) != 0 || len(doc.FeatureEnvironments) != 3 {
					t.Errorf("production export %s", res.Body)
				}
				if res.Header.Get("Content-Disposition") != "" {
					t.Error("Content-Disposition without downloadFile")
				}
			}},
		{name: "by names", method: "POST", path: export, body: map[string]any{"features": []string{"dormant", "elsewhere", "dormant"}, "environment": "development"},
			status: 200, events: ev, check: flagNames("dormant", "elsewhere")},
		{name: "an empty list is every active flag", method: "POST", path: export, body: map[string]any{"features": []string{}, "environment": "development"},
			status: 200, events: ev, check: flagNames("checkout", "checkout-child", "dormant", "elsewhere")},
		{name: "by tag value, whatever the type", method: "POST", path: export, body: map[string]any{"tag": "beta", "environment": "development"},
			status: 200, events: ev, check: flagNames("checkout", "elsewhere")},
		{name: "a tag nobody carries", method: "POST", path: export, body: map[string]any{"tag": "nobody", "environment": "development"},
			status: 200, events: ev, check: flagNames()},
		{name: "as a download", method: "POST", path: export, body: map[string]any{"project": "source", "environment": "development", "downloadFile": true},
			status: 200, events: ev, check: func(t *testing.T, res response) {
				want := "attachment; filename=export-" + time.Now().UTC().Format("2006-01-02") + ".json"
				if got := res.Header.Get("Content-Disposition"); got != want {
					t.Errorf("Content-Disposition %q, want %q", got, want)
				}
				flagNames("checkout", "checkout-child", "dormant")(t, res)
			}},
		{name: "unknown environment", method: "POST", path: export, body: map[string]any{"project": "source", "environment": "nope"}, status: 404, kind: "NotFoundError"},
		{name: "unknown project", method: "POST", path: export, body: map[string]any{"project": "nope", "environment": "development"}, status: 404, kind: "NotFoundError"},
		{name: "unknown flag", method: "POST", path: export, body: map[string]any{"features": []string{"checkout", "nope"}, "environment": "development"}, status: 404, kind: "NotFoundError"},
		{name: "archived flag", method: "POST", path: export, body: map[string]any{"features": []string{"gone"}, "environment": "development"}, status: 404, kind: "NotFoundError"},
		{name: "two selectors", method: "POST", path: export, body: map[string]any{"project": "source", "tag": "beta", "environment": "development"}, status: 400, kind: "ValidationError"},
		{name: "no selector", method: "POST", path: export, body: map[string]any{"environment": "development"}, status: 400, kind: "ValidationError"},
		{name: "no environment", method: "POST", path: export, body: map[string]any{"project": "source"}, status: 400, kind: "ValidationError"},
		{name: "NUL", method: "POST", path: export, body: map[string]any{"project": "so\x00urce", "environment": "development"}, status: 400, kind: "ValidationError"},
		{name: "no token", method: "POST", path: export, token: "-", body: map[string]any{"project": "source", "environment": "development"}, status: 401},
		{name: "client token", method: "POST", path: export, token: testClientToken, body: map[string]any{"project": "source", "environment": "development"}, status: 403},
	})

	// The event says what was exported.
	mark := auditMark(t, ts)
	exportOf(t, ts, map[string]any{"project": "source", "environment": "development"})
	e := mustOneAudit(t, ts, mark, "features-exported")
	var data exportEventData
	if err := json.Unmarshal(e.Data, &data); err != nil || e.Project != "source" || e.Environment != "development" ||
		data.Selector != "project" || !slices.Equal(data.Features, []string{"checkout", "checkout-child", "dormant"}) {
		t.Errorf("event %+v, data %s", e, e.Data)
	}
}

func TestImportValidation(t *testing.T) { importValidationFlow(t, newTestServer(t)) }

// importValidationFlow checks each finding of validate, and that import
// refuses what validate finds and changes nothing then.
func importValidationFlow(t *testing.T, ts *testServer) {
	seedExportSource(t, ts)
	doc := exportOf(t, ts, map[string]any{"project": "source", "environment": "development"})
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "target", "name": "Target"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "narrow", "name": "Narrow", "environments": []string{"development"}}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/strategies", map[string]any{"name": "byRegion", "parameters": []any{}}).must(t, http.StatusCreated)

	// edit returns a copy of doc with flags renamed (so that they do not
	// clash with the source project's) and change applied.
	edit := func(change func(d *exportDoc)) exportDoc {
		var d exportDoc
		data, _ := json.Marshal(doc)
		_ = json.Unmarshal(data, &d)
		rename := func(s string) string { return "new-" + s }
		for i := range d.Features {
			d.Features[i].Name = rename(d.Features[i].Name)
		}
		for i := range d.FeatureStrategies {
			d.FeatureStrategies[i].FeatureName = rename(d.FeatureStrategies[i].FeatureName)
		}
		for i := range d.FeatureEnvironments {
			d.FeatureEnvironments[i].Name = rename(d.FeatureEnvironments[i].Name)
			d.FeatureEnvironments[i].FeatureName = rename(d.FeatureEnvironments[i].FeatureName)
		}
		for i := range d.FeatureTags {
			d.FeatureTags[i].FeatureName = rename(d.FeatureTags[i].FeatureName)
		}
		for i := range d.Dependencies {
			d.Dependencies[i].Feature = rename(d.Dependencies[i].Feature)
			for j := range d.Dependencies[i].Dependencies {
				d.Dependencies[i].Dependencies[j].Feature = rename(d.Dependencies[i].Dependencies[j].Feature)
			}
		}
		if change != nil {
			change(&d)
		}
		return d
	}
	req := func(project, env string, d exportDoc) map[string]any {
		return map[string]any{"project": project, "environment": env, "data": d}
	}
	item := func(msg string, affected ...string) importItem {
		return importItem{Message: msg, AffectedItems: affected}
	}

	for _, tt := range []struct {
		name     string
		body     any
		errors   []importItem
		warnings []importItem
	}{
		{name: "the source's own export into another project", body: req("target", "development", doc),
			errors: []importItem{item(msgOtherProject, "checkout (in project source)", "checkout-child (in project source)", "dormant (in project source)")}},
		{name: "renamed flags import cleanly", body: req("target", "development", edit(nil))},
		{name: "environment not enabled in the project", body: req("narrow", "production", edit(nil)),
			errors: []importItem{item(msgEnvNotInProject, "production")}},
		{name: "unknown strategy type", body: req("target", "development", edit(func(d *exportDoc) { d.FeatureStrategies[1].Name = "nosuch" })),
			errors: []importItem{item(msgUnknownStrategy, "nosuch")}},
		{name: "custom strategy type", body: req("target", "development", edit(func(d *exportDoc) {
			d.FeatureStrategies[1].Name, d.FeatureStrategies[1].Parameters = "byRegion", nil
		})), warnings: []importItem{item(msgCustomStrategies, "byRegion")}},
		{name: "unknown flag type and invalid name", body: req("target", "development", edit(func(d *exportDoc) {
			d.Features[2].Type = "nosuch"
			d.Features = append(d.Features, exportFeature{Name: "has space"})
		})), errors: []importItem{item(msgUnknownType, "nosuch"), item(msgBadName, "has space")}},
		{name: "a flag twice", body: req("target", "development", edit(func(d *exportDoc) { d.Features = append(d.Features, d.Features[2]) })),
			errors: []importItem{item(msgDuplicate, "new-dormant")}},
		{name: "data about unlisted flags", body: req("target", "development", edit(func(d *exportDoc) { d.Features = d.Features[:1] })),
			errors: []importItem{item(msgUnlisted, "new-checkout-child", "new-dormant")}},
		{name: "segment missing from data.segments", body: req("target", "development", edit(func(d *exportDoc) { d.Segments = nil })),
			errors: []importItem{item(msgUnlistedSegment, "1")}},
		{name: "segment missing here", body: req("target", "development", edit(func(d *exportDoc) { d.Segments[0].Name = "nosuch" })),
			errors: []importItem{item(msgUnknownSegment, "nosuch")}},
		{name: "legal values missing here", body: req("target", "development", edit(func(d *exportDoc) {
			d.ContextFields[0].LegalValues = append(d.ContextFields[0].LegalValues, store.LegalValue{Value: "asia"})
		})), errors: []importItem{item(msgLegalValues, "region")}},
		{name: "a constraint value that is not legal", body: req("target", "development", edit(func(d *exportDoc) {
			d.FeatureStrategies[0].Constraints[0].Values = []string{"mars"}
		})), errors: []importItem{item(msgInvalidFlag, `new-checkout: "mars" is not a legal value of context field region`)}},
		{name: "an invalid new context field", body: req("target", "development", edit(func(d *exportDoc) {
			d.ContextFields = append(d.ContextFields, exportContextField{Name: "bad name"})
		})), errors: []importItem{item(msgBadContextField, `bad name: name "bad name" must be URL-friendly: letters, digits, '-', '_', '.' and '~' only`)}},
		{name: "a tag that is too short", body: req("target", "development", edit(func(d *exportDoc) { d.FeatureTags[0].TagValue = "x" })),
			errors: []importItem{item(msgBadTag, "simple:x")}},
		{name: "a parent that is nowhere", body: req("target", "development", edit(func(d *exportDoc) { d.Dependencies[0].Dependencies[0].Feature = "nowhere" })),
			errors: []importItem{item(msgUnknownParent, "new-checkout-child → nowhere")}},
		{name: "a variant split that does not work", body: req("target", "development", edit(func(d *exportDoc) {
			for i := range d.FeatureEnvironments[0].Variants {
				d.FeatureEnvironments[0].Variants[i].WeightType = "fix"
				d.FeatureEnvironments[0].Variants[i].Weight = 600
			}
		})), errors: []importItem{item(msgInvalidFlag, "new-checkout: the weights of fixed variants add up to 1200, more than 1000 (100%)")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := auditMark(t, ts)
			var report importReport
			ts.admin("POST", featuresBatchPath+"/validate", tt.body).must(t, http.StatusOK).Decode(t, &report)
			want := importReport{Errors: append([]importItem{}, tt.errors...), Warnings: append([]importItem{}, tt.warnings...), Permissions: []importItem{}}
			if diff := cmp.Diff(want, report); diff != "" {
				t.Errorf("validation (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(validateInWriteTransaction(t, ts, tt.body), report); diff != "" {
				t.Errorf("validation differs from the write transaction's (-transaction +validation):\n%s", diff)
			}
			mustNoAudit(t, ts, mark)
			if len(tt.errors) > 0 {
				res := ts.admin("POST", featuresBatchPath+"/import", tt.body)
				mustErrorRecord(t, res, http.StatusBadRequest, "ValidationError", "data")
				if !strings.Contains(res.Object()["message"].(string), tt.errors[0].Message) {
					t.Errorf("message %s", res.Body)
				}
				mustNoAudit(t, ts, mark)
			}
		})
	}

	// Archived flags of the project cannot be imported over.
	ts.admin("POST", featuresBatchPath+"/import", req("target", "development", edit(nil))).must(t, http.StatusOK)
	ts.admin("DELETE", "/api/admin/projects/target/features/new-dormant", nil).must(t, http.StatusAccepted)
	var report importReport
	ts.admin("POST", featuresBatchPath+"/validate", req("target", "development", edit(nil))).must(t, http.StatusOK).Decode(t, &report)
	if len(report.Errors) != 1 || report.Errors[0].Message != msgArchived || !slices.Equal(report.Errors[0].AffectedItems, []string{"new-dormant"}) {
		t.Errorf("archived: %+v", report.Errors)
	}

	// Malformed requests and unknown targets.
	valid := req("target", "development", edit(nil))
	for _, path := range []string{featuresBatchPath + "/validate", featuresBatchPath + "/import"} {
		for _, tt := range []struct {
			name   string
			body   any
			status int
			kind   string
		}{
			{"no project", map[string]any{"environment": "development", "data": valid["data"]}, 400, "ValidationError"},
			{"no environment", map[string]any{"project": "target", "data": valid["data"]}, 400, "ValidationError"},
			{"no data", map[string]any{"project": "target", "environment": "development"}, 400, "ValidationError"},
			{"data without features", map[string]any{"project": "target", "environment": "development", "data": map[string]any{"featureStrategies": []any{}}}, 400, "ValidationError"},
			{"data without featureStrategies", map[string]any{"project": "target", "environment": "development", "data": map[string]any{"features": []any{}}}, 400, "ValidationError"},
			{"NUL in the data", req("target", "development", edit(func(d *exportDoc) { d.Features[0].Description = "a\x00b" })), 400, "ValidationError"},
			{"malformed", `{"project":`, 400, "BadDataError"},
			{"unknown project", req("nope", "development", edit(nil)), 404, "NotFoundError"},
			{"unknown environment", req("target", "nope", edit(nil)), 404, "NotFoundError"},
		} {
			t.Run(path+" "+tt.name, func(t *testing.T) {
				mark := auditMark(t, ts)
				mustErrorRecord(t, ts.admin("POST", path, tt.body), tt.status, tt.kind, "")
				mustNoAudit(t, ts, mark)
			})
		}
		mustErrorRecord(t, ts.request("POST", path, "", valid), 401, "AuthenticationRequired", "")
		mustErrorRecord(t, ts.request("POST", path, testClientToken, valid), 403, "NoAccessError", "")
	}
}

func TestImportPermissions(t *testing.T) {
	ts := newTestServer(t)
	seedExportSource(t, ts)
	doc := exportOf(t, ts, map[string]any{"project": "source", "environment": "development"})
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "copy", "name": "Copy"}).must(t, http.StatusCreated)
	// Into the same instance the flags clash; into a copy of the project
	// with other names they would not. Use the source project itself: the
	// flags exist there and are overwritten.
	body := map[string]any{"project": "source", "environment": "development", "data": doc}
	viewer := viewerSession(t, ts)

	// A Viewer may neither validate nor import into the project.
	mark := auditMark(t, ts)
	mustForbid(t, ts.asSession(viewer, "POST", featuresBatchPath+"/validate", body), "UPDATE_FEATURE", "source")
	mustErrorRecord(t, ts.asSession(viewer, "POST", featuresBatchPath+"/import", body), 403, "NoAccessError", "")
	mustNoAudit(t, ts, mark)

	// A Member of the project may change its flags but not create
	// context fields or tag types: validate lists those, import refuses.
	member := createTestUser(t, ts, "mel-member", "Viewer", strongPassword)
	ts.admin("POST", "/api/admin/projects/source/access", map[string]any{"roles": []int{store.RoleMember}, "users": []map[string]int{{"id": member}}, "groups": []any{}}).must(t, http.StatusOK)
	memberS := signIn(t, ts, "mel-member", strongPassword)
	more := doc
	more.ContextFields = append(slices.Clone(doc.ContextFields), exportContextField{Name: "planet"})
	more.FeatureTags = append(slices.Clone(doc.FeatureTags), exportFeatureTag{FeatureName: "dormant", TagType: "squad", TagValue: "red"})
	moreBody := map[string]any{"project": "source", "environment": "development", "data": more}
	var report importReport
	ts.asSession(memberS, "POST", featuresBatchPath+"/validate", moreBody).must(t, http.StatusOK).Decode(t, &report)
	want := []importItem{{Message: "You need permission CREATE_CONTEXT_FIELD for these items:", AffectedItems: []string{"planet"}},
		{Message: "You need permission CREATE_TAG_TYPE for these items:", AffectedItems: []string{"squad"}}}
	if diff := cmp.Diff(want, report.Permissions); diff != "" {
		t.Errorf("permissions (-want +got):\n%s", diff)
	}
	if len(report.Errors) != 0 {
		t.Errorf("errors %+v", report.Errors)
	}
	mark = auditMark(t, ts)
	mustForbid(t, ts.asSession(memberS, "POST", featuresBatchPath+"/import", moreBody), "CREATE_CONTEXT_FIELD", "CREATE_TAG_TYPE")
	mustNoAudit(t, ts, mark)

	// An admin may; importing a project's own export into it changes
	// nothing but records the import.
	mark = auditMark(t, ts)
	ts.admin("POST", featuresBatchPath+"/import", body).must(t, http.StatusOK)
	after := exportOf(t, ts, map[string]any{"project": "source", "environment": "development"})
	if diff := cmp.Diff(normalizedExport(doc), normalizedExport(after)); diff != "" {
		t.Errorf("self-import changed the project (-before +after):\n%s", diff)
	}
	var got []string
	for _, e := range auditAfter(t, ts, mark) {
		got = append(got, e.Type)
	}
	wantEvents := []string{"feature-import", "feature-import", "feature-import", "features-imported", "features-exported"}
	if diff := cmp.Diff(wantEvents, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// feature-import carries the flag before and after.
	e := auditAfter(t, ts, mark)[0]
	var pre, post importedFlag
	if json.Unmarshal(e.PreData, &pre) != nil || json.Unmarshal(e.Data, &post) != nil || pre.Name != "checkout" || len(post.Strategies) != 2 ||
		!post.Enabled || len(post.Tags) != 2 || len(pre.Variants) != 2 {
		t.Errorf("feature-import data %s, preData %s", e.Data, e.PreData)
	}
}

// FuzzImportBodies posts arbitrary bodies to validate and import, in
// process, and requires an answer that is not a 5xx.
func FuzzImportBodies(f *testing.F) {
	strategy := `{"name":"flexibleRollout","featureName":"fz","sortOrder":1,"segments":[1],"parameters":{"rollout":"50"},` +
		`"constraints":[{"contextName":"region","operator":"IN","values":["eu"]}],"variants":[{"name":"a","weight":1000,"weightType":"variable","stickiness":"default"}]}`
	data := `{"features":[{"name":"fz","type":"release"},{"name":"fy","stale":true}],"featureStrategies":[` + strategy + `],` +
		`"featureEnvironments":[{"name":"fz","featureName":"fz","enabled":true,"variants":[{"name":"v","weight":1000,"overrides":[{"contextName":"userId","values":["1"]}]}]}],` +
		`"contextFields":[{"name":"region","legalValues":[{"value":"eu"}]}],"featureTags":[{"featureName":"fz","tagType":"team","tagValue":"core"}],` +
		`"segments":[{"id":1,"name":"s"}],"tagTypes":[{"name":"team","icon":null}],"dependencies":[{"feature":"fy","dependencies":[{"feature":"fz","variants":["a"]}]}]}`
	for _, seed := range []string{
		`{"project":"default","environment":"development","data":` + data + `}`,
		`{"project":"default","environment":"production","data":{"features":[{"name":"fz"}],"featureStrategies":[]}}`,
		`{"project":"default","environment":"development","data":{"features":[{"name":"fz","type":7}],"featureStrategies":[{"sortOrder":1e300}]}}`,
		`{"project":"default","environment":"development","data":{"features":[],"featureStrategies":[{"featureName":"x","segments":[-1]}]}}`,
		`{"project":"nope","environment":"development","data":{}}`, `{"data":null}`, `{}`, `[]`, `null`, ``,
	} {
		f.Add([]byte(seed))
	}
	h := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzPost(t, h, featuresBatchPath+"/validate", body)
		fuzzPost(t, h, featuresBatchPath+"/import", body)
	})
}

// An import may target another environment than the exported one: the
// configuration lands there, and nowhere else.
func TestImportIntoAnotherEnvironment(t *testing.T) {
	a, b := newTestServer(t), newTestServer(t)
	seedExportSource(t, a)
	doc := exportOf(t, a, map[string]any{"project": "source", "environment": "development"})
	b.admin("POST", "/api/admin/segments", map[string]any{"name": "beta-users", "constraints": []any{}}).must(t, http.StatusCreated)
	b.admin("POST", featuresBatchPath+"/import", map[string]any{"project": "default", "environment": "production", "data": doc}).must(t, http.StatusOK)

	prod := exportOf(t, b, map[string]any{"project": "default", "environment": "production"})
	for i := range prod.FeatureEnvironments {
		if prod.FeatureEnvironments[i].Environment != "production" {
			t.Errorf("entry %+v", prod.FeatureEnvironments[i])
		}
		prod.FeatureEnvironments[i].Environment = "development"
	}
	if diff := cmp.Diff(normalizedExport(doc), normalizedExport(prod)); diff != "" {
		t.Errorf("production after import (-exported +imported):\n%s", diff)
	}
	dev := exportOf(t, b, map[string]any{"project": "default", "environment": "development"})
	if len(dev.FeatureStrategies) != 0 || slices.ContainsFunc(dev.FeatureEnvironments, func(fe exportFeatureEnv) bool { return fe.Enabled }) {
		t.Errorf("development was changed too: %+v", dev)
	}
}

// With change requests on in the environment, an import is a direct edit
// like any other: validate lists it, import answers 403.
func TestImportWithChangeRequests(t *testing.T) {
	ts := newTestServer(t)
	seedExportSource(t, ts)
	doc := exportOf(t, ts, map[string]any{"project": "source", "environment": "development"})
	res := ts.admin("PUT", "/api/admin/projects/source/environments/development/change-requests/config",
		map[string]any{"changeRequestsEnabled": true, "requiredApprovals": 1})
	if res.Status >= 300 {
		t.Fatalf("enabling change requests: %d %s", res.Status, res.Body)
	}
	body := map[string]any{"project": "source", "environment": "development", "data": doc}
	var report importReport
	ts.admin("POST", featuresBatchPath+"/validate", body).must(t, http.StatusOK).Decode(t, &report)
	if len(report.Permissions) != 1 || !strings.Contains(report.Permissions[0].Message, "change request") ||
		!slices.Equal(report.Permissions[0].AffectedItems, []string{"development"}) {
		t.Errorf("permissions %+v", report.Permissions)
	}
	mark := auditMark(t, ts)
	res = ts.admin("POST", featuresBatchPath+"/import", body)
	mustErrorRecord(t, res, http.StatusForbidden, "NoAccessError", "")
	if !strings.Contains(string(res.Body), "change request") {
		t.Errorf("message %s", res.Body)
	}
	mustNoAudit(t, ts, mark)
	// Other environments are not affected.
	body["environment"] = "production"
	ts.admin("POST", featuresBatchPath+"/import", body).must(t, http.StatusOK)
}

// TestEmptyImport checks that importing is refused to whoever may not
// change the project's flags before anything else, even for a document
// with nothing in it, and that an empty import by someone who may records
// nothing: no event, so the revision SDKs cache by stays.
func TestEmptyImport(t *testing.T) {
	ts := newTestServer(t)
	empty := map[string]any{"project": "default", "environment": "development",
		"data": map[string]any{"features": []any{}, "featureStrategies": []any{}}}
	viewer := viewerSession(t, ts)
	mark := auditMark(t, ts)
	mustForbid(t, ts.asSession(viewer, "POST", featuresBatchPath+"/import", empty), "UPDATE_FEATURE", "default")
	ts.admin("POST", featuresBatchPath+"/import", empty).must(t, http.StatusOK)
	mustNoAudit(t, ts, mark)
	if rev := auditMark(t, ts); rev != mark {
		t.Errorf("revision moved from %d to %d", mark, rev)
	}

	// A project Member (a Viewer at root level) imports into that project.
	ts.admin("POST", "/api/admin/projects", map[string]any{"id": "team"}).must(t, http.StatusCreated)
	id := createTestUser(t, ts, "mona", "Viewer", strongPassword)
	mona := signIn(t, ts, "mona", strongPassword)
	ts.admin("POST", "/api/admin/projects/team/access", map[string]any{"roles": []int{store.RoleMember}, "users": []map[string]int{{"id": id}}}).
		must(t, http.StatusOK)
	one := map[string]any{"project": "team", "environment": "development",
		"data": map[string]any{"features": []map[string]any{{"name": "imported-by-member", "project": "team"}}, "featureStrategies": []any{}}}
	mustForbid(t, ts.asSession(viewer, "POST", featuresBatchPath+"/import", one), "UPDATE_FEATURE", "team")
	mark = auditMark(t, ts)
	ts.asSession(mona, "POST", featuresBatchPath+"/import", one).must(t, http.StatusOK)
	if got := eventTypes(t, ts, mark); !slices.Equal(got, []string{"feature-import", "features-imported"}) {
		t.Errorf("events %v", got)
	}
	// …but not into another project.
	one["project"] = "default"
	mustForbid(t, ts.asSession(mona, "POST", featuresBatchPath+"/import", one), "UPDATE_FEATURE", "default")
}
