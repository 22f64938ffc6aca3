package server

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/store"
)

// apiStep is one request of a sequential, table-driven test: the answer's
// status and error name, the audit events it must record (in order), and
// an optional check of the answer. Answers are also checked against the
// OpenAPI document.
type apiStep struct {
	name   string
	method string
	path   string
	token  string // default: the admin token; "-" for none
	body   any
	status int
	kind   string   // error name, for error statuses
	events []string // event types recorded, in order
	check  func(t *testing.T, res response)
}

// runSteps runs steps in order on ts, each as a subtest.
func runSteps(t *testing.T, ts *testServer, steps []apiStep) {
	t.Helper()
	c := newOAChecker(t, ts)
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			token := st.token
			switch token {
			case "":
				token = testAdminToken
			case "-":
				token = ""
			}
			mark := auditMark(t, ts)
			c.t = t
			res := c.do(st.method, st.path, token, st.body, st.status)
			if res.Status != st.status {
				t.FailNow()
			}
			if st.kind != "" {
				mustErrorRecord(t, res, st.status, st.kind, "")
			}
			var got []string
			for _, e := range auditAfter(t, ts, mark) {
				got = append(got, e.Type)
				if e.CreatedBy == "" {
					t.Errorf("event %s has no createdBy", e.Type)
				}
			}
			if diff := cmp.Diff(st.events, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if st.check != nil {
				st.check(t, res)
			}
		})
	}
}

// tagsOfAnswer decodes a {version, tags} answer.
func tagsOfAnswer(t *testing.T, res response) []store.Tag {
	t.Helper()
	var body tagList
	res.Decode(t, &body)
	if body.Version != 1 || body.Tags == nil {
		t.Fatalf("want {version: 1, tags: [...]}, got %s", res.Body)
	}
	return body.Tags
}

func wantTags(want ...store.Tag) func(t *testing.T, res response) {
	return func(t *testing.T, res response) {
		t.Helper()
		if diff := cmp.Diff(append([]store.Tag{}, want...), tagsOfAnswer(t, res)); diff != "" {
			t.Errorf("tags (-want +got):\n%s", diff)
		}
	}
}

func TestFeatureTags(t *testing.T) { featureTagsFlow(t, newTestServer(t)) }

// featureTagsFlow drives every tag route through its success path, its
// errors and its events.
func featureTagsFlow(t *testing.T, ts *testServer) {
	ts.admin("POST", defaultFeatures, map[string]any{"name": "tagged"}).must(t, http.StatusCreated)
	ts.admin("POST", defaultFeatures, map[string]any{"name": "other"}).must(t, http.StatusCreated)
	ts.admin("POST", "/api/admin/tag-types", map[string]any{"name": "team"}).must(t, http.StatusCreated)
	const tags = "/api/admin/features/tagged/tags"
	simple := func(v string) store.Tag { return store.Tag{Type: "simple", Value: v} }
	team := func(v string) store.Tag { return store.Tag{Type: "team", Value: v} }

	runSteps(t, ts, []apiStep{
		{name: "a flag without tags", method: "GET", path: tags, status: 200, check: wantTags()},
		{name: "add a tag", method: "POST", path: tags, body: map[string]string{"type": "simple", "value": "beta"}, status: 201,
			events: []string{"feature-tagged"}, check: func(t *testing.T, res response) {
				if got := res.Object(); got["type"] != "simple" || got["value"] != "beta" {
					t.Errorf("answer %s", res.Body)
				}
				if loc := res.Header.Get("Location"); loc != "/api/admin/features/tagged/tags/simple/beta" {
					t.Errorf("Location %q", loc)
				}
			}},
		{name: "adding it again is idempotent", method: "POST", path: tags, body: map[string]string{"type": "simple", "value": "beta"}, status: 201},
		{name: "type defaults to simple", method: "POST", path: tags, body: map[string]string{"value": "gamma"}, status: 201,
			events: []string{"feature-tagged"}},
		{name: "unknown tag type", method: "POST", path: tags, body: map[string]string{"type": "nope", "value": "xx"}, status: 400, kind: "ValidationError"},
		{name: "value of one character", method: "POST", path: tags, body: map[string]string{"type": "simple", "value": "x"}, status: 400, kind: "ValidationError"},
		{name: "value of 51 characters", method: "POST", path: tags, body: map[string]string{"type": "simple", "value": strings.Repeat("v", 51)}, status: 400, kind: "ValidationError"},
		{name: "malformed body", method: "POST", path: tags, body: "{", status: 400},
		{name: "unknown flag", method: "POST", path: "/api/admin/features/missing/tags", body: map[string]string{"value": "beta"}, status: 404, kind: "NotFoundError"},
		{name: "no token", method: "POST", path: tags, token: "-", body: map[string]string{"value": "beta"}, status: 401, kind: "AuthenticationRequired"},
		{name: "client token", method: "POST", path: tags, token: testClientToken, body: map[string]string{"value": "beta"}, status: 403, kind: "NoAccessError"},
		{name: "list", method: "GET", path: tags, status: 200, check: wantTags(simple("beta"), simple("gamma"))},
		{name: "list of an unknown flag", method: "GET", path: "/api/admin/features/missing/tags", status: 404, kind: "NotFoundError"},

		{name: "put adds first, then removes", method: "PUT", path: tags,
			body:   map[string]any{"addedTags": []store.Tag{team("core"), simple("beta")}, "removedTags": []store.Tag{simple("gamma"), simple("never-there")}},
			status: 200, events: []string{"feature-tagged", "feature-untagged"}, check: func(t *testing.T, res response) {
				wantTags(simple("beta"), team("core"))(t, res)
				if res.Header.Get("Location") != tags {
					t.Errorf("Location %q", res.Header.Get("Location"))
				}
			}},
		{name: "put adding and removing one tag removes it", method: "PUT", path: tags,
			body: map[string]any{"addedTags": []store.Tag{simple("temp")}, "removedTags": []store.Tag{simple("temp")}}, status: 200,
			events: []string{"feature-tagged", "feature-untagged"}, check: wantTags(simple("beta"), team("core"))},
		{name: "put without removedTags", method: "PUT", path: tags, body: map[string]any{"addedTags": []store.Tag{}}, status: 400, kind: "ValidationError"},
		{name: "put with an unknown tag type", method: "PUT", path: tags,
			body: map[string]any{"addedTags": []store.Tag{{Type: "nope", Value: "xx"}}, "removedTags": []store.Tag{}}, status: 400, kind: "ValidationError"},
		{name: "put on an unknown flag", method: "PUT", path: "/api/admin/features/missing/tags",
			body: map[string]any{"addedTags": []store.Tag{}, "removedTags": []store.Tag{}}, status: 404, kind: "NotFoundError"},
		{name: "put without token", method: "PUT", path: tags, token: "-", body: map[string]any{"addedTags": []store.Tag{}, "removedTags": []store.Tag{}}, status: 401},

		{name: "delete one tag", method: "DELETE", path: tags + "/team/core", status: 200, events: []string{"feature-untagged"}},
		{name: "delete a tag the flag lacks", method: "DELETE", path: tags + "/team/core", status: 404, kind: "NotFoundError"},
		{name: "delete on an unknown flag", method: "DELETE", path: "/api/admin/features/missing/tags/simple/beta", status: 404, kind: "NotFoundError"},
		{name: "what is left", method: "GET", path: tags, status: 200, check: wantTags(simple("beta"))},

		// The tags in use.
		{name: "tag other", method: "POST", path: "/api/admin/features/other/tags", body: simple("beta"), status: 201, events: []string{"feature-tagged"}},
		{name: "tag other with team", method: "POST", path: "/api/admin/features/other/tags", body: team("web"), status: 201, events: []string{"feature-tagged"}},
		{name: "all tags", method: "GET", path: "/api/admin/tags", status: 200, check: wantTags(simple("beta"), team("web"))},
		{name: "tags of a type", method: "GET", path: "/api/admin/tags/team", status: 200, check: wantTags(team("web"))},
		{name: "tags of an unknown type", method: "GET", path: "/api/admin/tags/nope", status: 404, kind: "NotFoundError"},
		{name: "one tag", method: "GET", path: "/api/admin/tags/simple/beta", status: 200, check: func(t *testing.T, res response) {
			if tag, _ := res.Object()["tag"].(map[string]any); res.Object()["version"] != 1.0 || tag["value"] != "beta" {
				t.Errorf("answer %s", res.Body)
			}
		}},
		{name: "a tag nobody carries", method: "GET", path: "/api/admin/tags/simple/nobody", status: 404, kind: "NotFoundError"},
		{name: "delete a tag everywhere", method: "DELETE", path: "/api/admin/tags/simple/beta", status: 200,
			events: []string{"feature-untagged", "feature-untagged", "tag-deleted"}},
		{name: "deleting it again changes nothing", method: "DELETE", path: "/api/admin/tags/simple/beta", status: 200},
		{name: "gone from the flags", method: "GET", path: "/api/admin/tags", status: 200, check: wantTags(team("web"))},
	})

	// The admin view of a flag lists its tags.
	var f adminFeature
	ts.admin("GET", defaultFeatures+"/other", nil).must(t, http.StatusOK).Decode(t, &f)
	if !slices.Equal(f.Tags, []store.Tag{team("web")}) {
		t.Errorf("flag tags %v", f.Tags)
	}
	// Archived flags keep their tags but cannot be tagged.
	ts.admin("DELETE", defaultFeatures+"/other", nil).must(t, http.StatusAccepted)
	ts.admin("GET", "/api/admin/features/other/tags", nil).must(t, http.StatusOK)
	mustErrorRecord(t, ts.admin("POST", "/api/admin/features/other/tags", simple("late")), 404, "NotFoundError", "")
}
