package server

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// defaultFeatures is the flag collection of the default project.
const defaultFeatures = "/api/admin/projects/default/features"

// flagFixture drives the flag routes of a real test server and reads the
// audit log behind them.
type flagFixture struct {
	t  *testing.T
	ts *testServer
}

func newFlagFixture(t *testing.T) flagFixture {
	t.Helper()
	return flagFixture{t: t, ts: newTestServer(t)}
}

// create makes an active flag in the default project.
func (fx flagFixture) create(name string) {
	fx.t.Helper()
	fx.ts.admin("POST", defaultFeatures, map[string]any{"name": name}).must(fx.t, http.StatusCreated)
}

// addStrategy adds a strategy and returns its admin JSON.
func (fx flagFixture) addStrategy(flag, env string, body any) adminStrategy {
	fx.t.Helper()
	var st adminStrategy
	fx.ts.admin("POST", envPath(flag, env)+"/strategies", body).must(fx.t, http.StatusOK).Decode(fx.t, &st)
	return st
}

// feature reads a flag's admin JSON.
func (fx flagFixture) feature(name string) adminFeature {
	fx.t.Helper()
	var f adminFeature
	fx.ts.admin("GET", defaultFeatures+"/"+name, nil).must(fx.t, http.StatusOK).Decode(fx.t, &f)
	return f
}

func envPath(flag, env string) string { return defaultFeatures + "/" + flag + "/environments/" + env }

// lastEvent is the id of the newest audit event.
func (fx flagFixture) lastEvent() int64 {
	fx.t.Helper()
	rev, err := fx.ts.srv.store.Revision(context.Background())
	if err != nil {
		fx.t.Fatal(err)
	}
	return rev
}

// eventsAfter reads the audit events newer than id, oldest first.
func (fx flagFixture) eventsAfter(id int64) []store.Event {
	fx.t.Helper()
	var list []store.Event
	err := fx.ts.srv.store.View(context.Background(), func(r store.Reader) (err error) {
		list, err = r.ListEvents(context.Background(), store.EventFilter{AfterID: id, Ascending: true})
		return err
	})
	if err != nil {
		fx.t.Fatal(err)
	}
	return list
}

// expectEvents checks that exactly the events of types (in order) were
// recorded after id, each naming the flag, and returns them.
func (fx flagFixture) expectEvents(after int64, flag string, types ...string) []store.Event {
	fx.t.Helper()
	list := fx.eventsAfter(after)
	var got []string
	for _, e := range list {
		got = append(got, e.Type)
		if flag != "" && e.FeatureName != flag {
			fx.t.Errorf("event %s names flag %q, want %q", e.Type, e.FeatureName, flag)
		}
		if e.CreatedBy == "" {
			fx.t.Errorf("event %s has no createdBy", e.Type)
		}
	}
	if diff := cmp.Diff(types, got); diff != "" {
		fx.t.Fatalf("events after %d (-want +got):\n%s", after, diff)
	}
	return list
}

// storeChange runs fn in an audited store transaction, for setting up
// records whose admin routes are not this area's (segments, projects).
func (fx flagFixture) storeChange(fn func(ctx context.Context, tx store.Tx) error) {
	fx.t.Helper()
	ctx := withPrincipal(context.Background(), &Principal{Token: &store.APIToken{TokenName: "test-setup"}})
	err := fx.ts.srv.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		return []store.Event{{Type: "setting-updated"}}, fn(ctx, tx)
	})
	if err != nil {
		fx.t.Fatal(err)
	}
}

// addProject creates a project with the development environment.
func (fx flagFixture) addProject(id string) {
	fx.t.Helper()
	fx.storeChange(func(ctx context.Context, tx store.Tx) error {
		if _, err := tx.CreateProject(ctx, store.Project{ID: id, Name: id, Mode: "open", DefaultStickiness: "default"}); err != nil {
			return err
		}
		return tx.CreateProjectEnvironment(ctx, store.ProjectEnvironment{Project: id, Environment: store.EnvDevelopment})
	})
}

// addSegment creates a segment and returns its id.
func (fx flagFixture) addSegment(name, project string, constraints ...clientapi.Constraint) int {
	fx.t.Helper()
	var id int
	fx.storeChange(func(ctx context.Context, tx store.Tx) error {
		seg, err := tx.CreateSegment(ctx, store.Segment{Name: name, Project: project, Constraints: constraints})
		id = seg.ID
		return err
	})
	return id
}

// mustError checks that res is an Error record of kind name and, when
// path is not empty, that a detail names that property.
func mustError(t *testing.T, res response, status int, name, path string) {
	t.Helper()
	res.must(t, status)
	var body struct {
		Name    string `json:"name"`
		Message string `json:"message"`
		Details []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"details"`
	}
	res.Decode(t, &body)
	if body.Name != name || body.Message == "" || len(body.Details) == 0 {
		t.Fatalf("want a %s record with message and details, got %s", name, res.Body)
	}
	if path != "" && !slices.ContainsFunc(body.Details, func(d struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	}) bool {
		return d.Path == path
	}) {
		t.Fatalf("want a detail about %q, got %s", path, res.Body)
	}
}

func TestCreateFeature(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("taken")
	fx.create("was-archived")
	fx.ts.admin("DELETE", defaultFeatures+"/was-archived", nil).must(t, http.StatusAccepted)

	tests := []struct {
		name   string
		path   string
		body   any
		status int
		kind   string
		detail string
	}{
		{"minimal", defaultFeatures, map[string]any{"name": "new.flag_1~"}, 201, "", ""},
		{"every field", defaultFeatures, map[string]any{"name": "full", "type": "kill-switch", "description": "d",
			"impressionData": true, "tags": []store.Tag{{Type: "simple", Value: "team-a"}}}, 201, "", ""},
		{"100 characters", defaultFeatures, map[string]any{"name": strings.Repeat("a", 100)}, 201, "", ""},
		{"101 characters", defaultFeatures, map[string]any{"name": strings.Repeat("a", 101)}, 400, "ValidationError", "name"},
		{"no name", defaultFeatures, map[string]any{"type": "release"}, 400, "ValidationError", "name"},
		{"space in name", defaultFeatures, map[string]any{"name": "my flag"}, 400, "ValidationError", "name"},
		{"slash in name", defaultFeatures, map[string]any{"name": "a/b"}, 400, "ValidationError", "name"},
		{"non-ASCII name", defaultFeatures, map[string]any{"name": "hellø"}, 400, "ValidationError", "name"},
		{"dot dot", defaultFeatures, map[string]any{"name": ".."}, 400, "ValidationError", "name"},
		{"unknown type", defaultFeatures, map[string]any{"name": "x1", "type": "nope"}, 400, "ValidationError", "type"},
		{"name not a string", defaultFeatures, map[string]any{"name": 5}, 400, "ValidationError", "name"},
		{"unknown tag type", defaultFeatures, map[string]any{"name": "x2", "tags": []store.Tag{{Type: "nope", Value: "vv"}}}, 400, "ValidationError", "tags[0].type"},
		{"short tag value", defaultFeatures, map[string]any{"name": "x3", "tags": []store.Tag{{Type: "simple", Value: "v"}}}, 400, "ValidationError", "tags[0].value"},
		{"name taken", defaultFeatures, map[string]any{"name": "taken"}, 409, "NameExistsError", ""},
		{"name taken in the archive", defaultFeatures, map[string]any{"name": "was-archived"}, 409, "NameExistsError", ""},
		{"unknown project", "/api/admin/projects/nope/features", map[string]any{"name": "x4"}, 404, "NotFoundError", ""},
		{"malformed JSON", defaultFeatures, `{"name":`, 400, "BadDataError", ""},
		{"empty body", defaultFeatures, ``, 400, "BadDataError", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			res := fx.ts.admin("POST", tt.path, tt.body)
			if tt.status != http.StatusCreated {
				mustError(t, res, tt.status, tt.kind, tt.detail)
				fx.expectEvents(before, "")
				return
			}
			var f adminFeature
			res.must(t, 201).Decode(t, &f)
			if f.Project != "default" || f.Type == "" || f.CreatedAt.IsZero() || len(f.Environments) != 2 {
				t.Errorf("created flag %s", res.Body)
			}
			fx.expectEvents(before, f.Name, "feature-created")
		})
	}

	t.Run("415 for text/plain", func(t *testing.T) {
		res := fx.ts.request("POST", defaultFeatures, testAdminToken, `{"name":"plain"}`, "Content-Type", "text/plain")
		mustError(t, res, http.StatusUnsupportedMediaType, "ContentTypeError", "")
	})

	t.Run("defaults and lists", func(t *testing.T) {
		res := fx.ts.admin("GET", defaultFeatures+"/new.flag_1~", nil).must(t, http.StatusOK)
		body := res.Object()
		if body["type"] != "release" || body["archivedAt"] != nil || body["enabled"] != false {
			t.Errorf("defaults: %s", res.Body)
		}
		for _, key := range []string{"environments", "tags", "children", "dependencies"} {
			if _, ok := body[key].([]any); !ok {
				t.Errorf("%s is not a list: %s", key, res.Body)
			}
		}
		// Variants and last-seen times are per environment, as in Unleash's
		// featureSchema.
		for _, key := range []string{"variants", "lastSeenAt"} {
			if _, ok := body[key]; ok {
				t.Errorf("flag-wide %s: %s", key, res.Body)
			}
		}
		env := body["environments"].([]any)[0].(map[string]any)
		for _, key := range []string{"strategies", "variants"} {
			if _, ok := env[key].([]any); !ok {
				t.Errorf("environment %s is not a list: %s", key, res.Body)
			}
		}
		if env["name"] != "development" || env["type"] != "development" || env["hasStrategies"] != false {
			t.Errorf("environment: %v", env)
		}
		full := fx.feature("full")
		if !full.ImpressionData || full.Type != "kill-switch" || len(full.Tags) != 1 || full.Tags[0].Value != "team-a" {
			t.Errorf("full flag: %+v", full)
		}
	})
}

func TestReadFeatures(t *testing.T) {
	fx := newFlagFixture(t)
	fx.addProject("other")
	fx.create("alpha-one")
	fx.create("alpha-two")
	fx.create("beta")
	fx.ts.admin("POST", "/api/admin/projects/other/features", map[string]any{"name": "elsewhere", "tags": []store.Tag{{Type: "simple", Value: "blue"}}}).must(t, 201)
	fx.create("gone")
	fx.ts.admin("DELETE", defaultFeatures+"/gone", nil).must(t, http.StatusAccepted)

	names := func(res response) []string {
		var list featureList
		res.must(t, http.StatusOK).Decode(t, &list)
		out := []string{}
		for _, f := range list.Features {
			out = append(out, f.Name)
		}
		return out
	}
	tests := []struct {
		path string
		want []string
	}{
		{defaultFeatures, []string{"alpha-one", "alpha-two", "beta"}},
		{defaultFeatures + "?namePrefix=alpha", []string{"alpha-one", "alpha-two"}},
		{"/api/admin/projects/other/features", []string{"elsewhere"}},
		{"/api/admin/features", []string{"alpha-one", "alpha-two", "beta", "elsewhere"}},
		{"/api/admin/features?tag=simple:blue", []string{"elsewhere"}},
		{"/api/admin/features?project=default&namePrefix=b", []string{"beta"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, names(fx.ts.admin("GET", tt.path, nil))); diff != "" {
			t.Errorf("GET %s (-want +got):\n%s", tt.path, diff)
		}
	}
	if v := fx.ts.admin("GET", defaultFeatures, nil).Object()["version"]; v != float64(2) {
		t.Errorf("project list version %v", v)
	}

	notFound := []string{
		defaultFeatures + "/nope",
		defaultFeatures + "/elsewhere", // another project's flag
		defaultFeatures + "/gone",      // archived
		"/api/admin/projects/nope/features",
		"/api/admin/features/gone",
		"/api/admin/features/nope",
	}
	for _, path := range notFound {
		mustError(t, fx.ts.admin("GET", path, nil), http.StatusNotFound, "NotFoundError", "")
	}
	mustError(t, fx.ts.admin("GET", "/api/admin/features?tag=nocolon", nil), 400, "ValidationError", "tag")
	if f := fx.ts.admin("GET", "/api/admin/features/beta", nil).must(t, 200).Object(); f["name"] != "beta" {
		t.Errorf("legacy get: %v", f)
	}
}

func TestUpdateFeature(t *testing.T) {
	fx := newFlagFixture(t)
	fx.ts.admin("POST", defaultFeatures, map[string]any{"name": "f", "description": "first", "type": "experiment"}).must(t, 201)

	tests := []struct {
		name   string
		body   any
		status int
		detail string
		events []string
		check  func(t *testing.T, f adminFeature)
	}{
		{"description only", map[string]any{"description": "second"}, 200, "", []string{"feature-metadata-updated"}, func(t *testing.T, f adminFeature) {
			if f.Description != "second" || f.Type != "experiment" || f.Stale || f.ImpressionData {
				t.Errorf("other properties changed: %+v", f)
			}
		}},
		{"stale on", map[string]any{"stale": true}, 200, "", []string{"feature-metadata-updated", "feature-stale-on"}, func(t *testing.T, f adminFeature) {
			if !f.Stale || f.Description != "second" {
				t.Errorf("%+v", f)
			}
		}},
		{"stale off and type", map[string]any{"stale": false, "type": "release", "impressionData": true}, 200, "", []string{"feature-metadata-updated", "feature-stale-off"}, func(t *testing.T, f adminFeature) {
			if f.Stale || f.Type != "release" || !f.ImpressionData {
				t.Errorf("%+v", f)
			}
		}},
		{"same name is fine", map[string]any{"name": "f"}, 200, "", []string{"feature-metadata-updated"}, nil},
		{"rename", map[string]any{"name": "g"}, 400, "name", nil, nil},
		{"unknown type", map[string]any{"type": "nope"}, 400, "type", nil, nil},
		{"wrong JSON type", map[string]any{"stale": "yes"}, 400, "stale", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			res := fx.ts.admin("PUT", defaultFeatures+"/f", tt.body)
			if tt.status != 200 {
				mustError(t, res, tt.status, "ValidationError", tt.detail)
				fx.expectEvents(before, "")
				return
			}
			var f adminFeature
			res.must(t, 200).Decode(t, &f)
			fx.expectEvents(before, "f", tt.events...)
			if tt.check != nil {
				tt.check(t, f)
			}
		})
	}

	mustError(t, fx.ts.admin("PUT", defaultFeatures+"/nope", map[string]any{"stale": true}), 404, "NotFoundError", "")
	mustError(t, fx.ts.request("PUT", defaultFeatures+"/f", testAdminToken, `{}`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")

	t.Run("archived true archives", func(t *testing.T) {
		before := fx.lastEvent()
		var f adminFeature
		fx.ts.admin("PUT", defaultFeatures+"/f", map[string]any{"archived": true}).must(t, 200).Decode(t, &f)
		if !f.Archived || f.ArchivedAt == nil {
			t.Errorf("not archived: %+v", f)
		}
		events := fx.expectEvents(before, "f", "feature-archived")
		var data featureMeta
		if err := json.Unmarshal(events[0].Data, &data); err != nil || !data.Archived || data.ArchivedAt == nil {
			t.Errorf("event data %s", events[0].Data)
		}
		fx.ts.admin("GET", defaultFeatures+"/f", nil).must(t, http.StatusNotFound)
		archived := fx.ts.admin("GET", "/api/admin/archive/features", nil).must(t, 200)
		if !strings.Contains(string(archived.Body), `"name":"f"`) {
			t.Errorf("archive list %s", archived.Body)
		}
	})
}

func TestPatchFeature(t *testing.T) {
	fx := newFlagFixture(t)
	fx.ts.admin("POST", defaultFeatures, map[string]any{"name": "p", "description": "old"}).must(t, 201)
	op := func(kind, path string, value any) map[string]any {
		return map[string]any{"op": kind, "path": path, "value": value}
	}
	tests := []struct {
		name   string
		body   any
		status int
		events []string
	}{
		{"replace description", []any{op("replace", "/description", "new")}, 200, []string{"feature-metadata-updated"}},
		{"stale and impression data", []any{op("replace", "/stale", true), op("replace", "/impressionData", true)}, 200, []string{"feature-metadata-updated", "feature-stale-on"}},
		{"test that passes", []any{op("test", "/description", "new")}, 200, []string{"feature-metadata-updated"}},
		{"test that fails", []any{op("test", "/description", "other")}, 400, nil},
		{"replace missing path", []any{op("replace", "/nothing/here", 1)}, 400, nil},
		{"unknown op", []any{op("merge", "/description", "x")}, 400, nil},
		{"object instead of array", op("replace", "/description", "x"), 400, nil},
		{"rename", []any{op("replace", "/name", "q")}, 400, nil},
		{"move project", []any{op("replace", "/project", "other")}, 400, nil},
		{"variants", []any{op("add", "/variants", []any{})}, 400, nil},
		{"unknown type", []any{op("replace", "/type", "nope")}, 400, nil},
		{"wrong JSON type", []any{op("replace", "/stale", "yes")}, 400, nil},
		{"path without slash", []any{op("replace", "description", "x")}, 400, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fx.lastEvent()
			res := fx.ts.admin("PATCH", defaultFeatures+"/p", tt.body)
			if tt.status != 200 {
				mustError(t, res, tt.status, "ValidationError", "")
				fx.expectEvents(before, "")
				return
			}
			res.must(t, 200)
			fx.expectEvents(before, "p", tt.events...)
		})
	}
	f := fx.feature("p")
	if f.Description != "new" || !f.Stale || !f.ImpressionData || f.Type != "release" {
		t.Errorf("after patches: %+v", f)
	}
	mustError(t, fx.ts.admin("PATCH", defaultFeatures+"/nope", []any{op("replace", "/description", "x")}), 404, "NotFoundError", "")
	mustError(t, fx.ts.request("PATCH", defaultFeatures+"/p", testAdminToken, `[]`, "Content-Type", "text/plain"), 415, "ContentTypeError", "")

	before := fx.lastEvent()
	fx.ts.admin("PATCH", defaultFeatures+"/p", []any{op("replace", "/archived", true)}).must(t, 200)
	fx.expectEvents(before, "p", "feature-archived")
}

func TestValidateFeatureName(t *testing.T) {
	fx := newFlagFixture(t)
	fx.create("taken")
	tests := []struct {
		body   any
		status int
	}{
		{map[string]any{"name": "free"}, 200},
		{map[string]any{"name": "taken"}, 409},
		{map[string]any{"name": "not valid"}, 400},
		{map[string]any{"name": ""}, 400},
		{map[string]any{}, 400},
	}
	for _, tt := range tests {
		if res := fx.ts.admin("POST", "/api/admin/features/validate", tt.body); res.Status != tt.status {
			t.Errorf("validate %v: %d %s, want %d", tt.body, res.Status, res.Body, tt.status)
		}
	}
	fx.ts.request("POST", "/api/admin/features/validate", testAdminToken, `{"name":"x"}`, "Content-Type", "text/plain").must(t, 415)
}

func TestCloneFeature(t *testing.T) {
	fx := newFlagFixture(t)
	fx.ts.admin("POST", defaultFeatures, map[string]any{"name": "src", "type": "experiment", "description": "d"}).must(t, 201)
	fx.create("parent")
	fx.addStrategy("src", "development", map[string]any{"name": "flexibleRollout",
		"parameters": map[string]string{"rollout": "50", "groupId": "src", "stickiness": "default"}})
	fx.ts.admin("PUT", envPath("src", "development")+"/variants", []any{map[string]any{"name": "a", "weight": 1000}}).must(t, 200)
	fx.ts.admin("POST", defaultFeatures+"/src/dependencies", map[string]any{"feature": "parent"}).must(t, 200)
	fx.ts.admin("POST", envPath("src", "development")+"/on", nil).must(t, 200)

	before := fx.lastEvent()
	var c adminFeature
	fx.ts.admin("POST", defaultFeatures+"/src/clone", map[string]any{"name": "copy"}).must(t, 201).Decode(t, &c)
	fx.expectEvents(before, "copy", "feature-created", "feature-environment-variants-updated", "feature-strategy-add", "feature-dependency-added")
	dev := c.Environments[0]
	if c.Type != "experiment" || c.Description != "d" || dev.Enabled || len(dev.Strategies) != 1 || len(dev.Variants) != 1 {
		t.Fatalf("clone: %+v", c)
	}
	if g := dev.Strategies[0].Parameters["groupId"]; g != "copy" {
		t.Errorf("groupId %q, want the new name", g)
	}
	if len(c.Dependencies) != 1 || c.Dependencies[0].Feature != "parent" {
		t.Errorf("dependencies %+v", c.Dependencies)
	}
	var kept adminFeature
	fx.ts.admin("POST", defaultFeatures+"/src/clone", map[string]any{"name": "copy2", "replaceGroupId": false}).must(t, 201).Decode(t, &kept)
	if g := kept.Environments[0].Strategies[0].Parameters["groupId"]; g != "src" {
		t.Errorf("groupId %q, want it kept", g)
	}
	mustError(t, fx.ts.admin("POST", defaultFeatures+"/src/clone", map[string]any{"name": "copy"}), 409, "NameExistsError", "")
	mustError(t, fx.ts.admin("POST", defaultFeatures+"/src/clone", map[string]any{"name": "bad name"}), 400, "ValidationError", "name")
	mustError(t, fx.ts.admin("POST", defaultFeatures+"/nope/clone", map[string]any{"name": "x"}), 404, "NotFoundError", "")
}

// TestClientAPIServesAdminChanges builds a flag through the admin API and
// reads it back as an SDK does.
func TestClientAPIServesAdminChanges(t *testing.T) {
	fx := newFlagFixture(t)
	seg := fx.addSegment("beta-users", "", clientapi.Constraint{ContextName: "userId", Operator: "IN", Values: []string{"7"}})
	first := fx.ts.request("GET", "/api/client/features", testClientToken, nil).must(t, 200)

	fx.ts.admin("POST", defaultFeatures, map[string]any{"name": "e2e", "impressionData": true}).must(t, 201)
	fx.addStrategy("e2e", "development", map[string]any{
		"name":       "flexibleRollout",
		"parameters": map[string]any{"rollout": 100, "stickiness": "userId", "groupId": "e2e"},
		"constraints": []any{
			map[string]any{"contextName": "appName", "operator": "IN", "values": []string{"web"}},
			map[string]any{"contextName": "version", "operator": "SEMVER_GT", "value": "1.2.3"},
		},
		"segments": []int{seg},
		"variants": []any{
			map[string]any{"name": "red", "weight": 0, "weightType": "variable", "stickiness": "userId"},
			map[string]any{"name": "blue", "weight": 300, "weightType": "fix", "stickiness": "userId",
				"payload": map[string]string{"type": "json", "value": `{"c":1}`}},
		},
	})
	fx.addStrategy("e2e", "development", map[string]any{"name": "default", "disabled": true})
	fx.ts.admin("PUT", envPath("e2e", "development")+"/variants", []any{
		map[string]any{"name": "x", "weight": 1}, map[string]any{"name": "y", "weight": 1}, map[string]any{"name": "z", "weight": 1},
	}).must(t, 200)
	fx.ts.admin("POST", envPath("e2e", "development")+"/on", nil).must(t, 200)

	res := fx.ts.request("GET", "/api/client/features", testClientToken, nil).must(t, 200)
	if res.Header.Get("ETag") == first.Header.Get("ETag") {
		t.Error("the ETag did not change after the admin changes")
	}
	var payload clientapi.Features
	res.Decode(t, &payload)
	i := slices.IndexFunc(payload.Features, func(f clientapi.Feature) bool { return f.Name == "e2e" })
	if i < 0 {
		t.Fatalf("flag missing from %s", res.Body)
	}
	f := payload.Features[i]
	if !f.Enabled || !f.ImpressionData || f.Project != "default" || f.Type != "release" {
		t.Errorf("flag %+v", f)
	}
	if len(f.Strategies) != 1 {
		t.Fatalf("want only the enabled strategy, got %+v", f.Strategies)
	}
	st := f.Strategies[0]
	if st.Name != "flexibleRollout" || st.Parameters["rollout"] != "100" || len(st.Constraints) != 2 ||
		!slices.Equal(st.Segments, []int{seg}) || st.Constraints[1].Value != "1.2.3" {
		t.Errorf("strategy %+v", st)
	}
	if total := weightSum(st.Variants); total != 1000 || st.Variants[0].Name != "blue" || st.Variants[0].Weight != 300 {
		t.Errorf("strategy variants %+v", st.Variants)
	}
	if total := weightSum(f.Variants); total != 1000 || f.Variants[0].Weight != 334 {
		t.Errorf("flag variants %+v", f.Variants)
	}
	if !slices.ContainsFunc(payload.Segments, func(s clientapi.Segment) bool { return s.ID == seg }) {
		t.Errorf("segment %d not served: %+v", seg, payload.Segments)
	}
	// The raw JSON has lists, never null.
	raw := string(res.Body)
	for _, bad := range []string{`"constraints":null`, `"variants":null`, `"strategies":null`, `"values":null`} {
		if strings.Contains(raw, bad) {
			t.Errorf("payload contains %s", bad)
		}
	}
}

func weightSum(list []clientapi.Variant) int {
	total := 0
	for _, v := range list {
		total += v.Weight
	}
	return total
}
