package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/signalbox/signalbox/auth/saml/samltest"
)

// strategyFlow adds and edits a flexibleRollout with constraints of several
// operator families and a segment, refuses an invalid JSON payload next to
// its field, saves a valid one, and reorders strategies. The effect is read
// from the client API each time.
func strategyFlow(t *testing.T, s *uiSuite) {
	const flag = "rollout-flag"
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": flag})
	var seg struct {
		ID int `json:"id"`
	}
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/segments", obj{"name": "beta-users",
		"constraints": []obj{{"contextName": "userId", "operator": "IN", "values": []string{"beta-1"}}}}), &seg)

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default/features/"+flag, flag)
	f.run("adding a flexibleRollout",
		click(`button[aria-label="Add strategy in development"]`),
		chromedp.WaitVisible(chromedp.CSS(`dialog input[name=rollout]`)),
		typeInto(`dialog input[name=rollout]`, "35"),
		choose(`dialog select[name=stickiness]`, "userId"),
		typeInto(`dialog input[name=groupId]`, "checkout"),
		clickButton("Add constraint"),
		typeInto(`dialog input[name=constraint-0-values]`, "alice, bob,carol"),
		clickButton("Add constraint"),
		choose(`dialog select[name=constraint-1-context]`, "appName"),
		choose(`dialog select[name=constraint-1-operator]`, "STR_STARTS_WITH"),
		typeInto(`dialog input[name=constraint-1-values]`, "Web"),
		click(`dialog input[name=constraint-1-case]`),
		click(`dialog input[name=constraint-1-inverted]`),
		clickButton("Add constraint"),
		choose(`dialog select[name=constraint-2-context]`, "environment"),
		choose(`dialog select[name=constraint-2-operator]`, "DATE_AFTER"),
		setInput(`dialog input[name=constraint-2-value]`, "2025-01-02T03:04"),
		clickButton("Add constraint"),
		choose(`dialog select[name=constraint-3-operator]`, "NUM_GTE"),
		typeInto(`dialog input[name=constraint-3-value]`, "18"),
		clickButton("Add constraint"),
		choose(`dialog select[name=constraint-4-operator]`, "SEMVER_LT"),
		typeInto(`dialog input[name=constraint-4-value]`, "2.0.0"),
		click(fmt.Sprintf(`dialog input[name=segment][value="%d"]`, seg.ID)),
		waitText("dialog .summary-box", "On for 35% of users"))
	if got := f.textOf("dialog .summary-box"); !strings.Contains(got, "beta-users") || !strings.Contains(got, "appName NOT starts with Web (ignoring case)") {
		t.Errorf("summary: %q", got)
	}
	f.screenshot("strategy-editor")
	f.run("saving", clickButton("Save strategy"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`section[data-env=development] .summary`, "On for 35% of users"))

	st := clientStrategies(t, s.url, flag)
	if len(st) != 1 {
		t.Fatalf("client API: %d strategies", len(st))
	}
	p := st[0]["parameters"].(map[string]any)
	if p["rollout"] != "35" || p["stickiness"] != "userId" || p["groupId"] != "checkout" {
		t.Errorf("parameters %v", p)
	}
	cs := st[0]["constraints"].([]any)
	if len(cs) != 5 {
		t.Fatalf("constraints %v", cs)
	}
	want := []string{"IN", "STR_STARTS_WITH", "DATE_AFTER", "NUM_GTE", "SEMVER_LT"}
	for i, c := range cs {
		c := c.(map[string]any)
		if c["operator"] != want[i] {
			t.Errorf("constraint %d: %v", i, c)
		}
	}
	if c := cs[0].(map[string]any); fmt.Sprint(c["values"]) != "[alice bob carol]" {
		t.Errorf("pasted list: %v", c["values"])
	}
	if c := cs[1].(map[string]any); c["caseInsensitive"] != true || c["inverted"] != true || fmt.Sprint(c["values"]) != "[Web]" {
		t.Errorf("string constraint: %v", c)
	}
	if c := cs[2].(map[string]any); !strings.HasPrefix(fmt.Sprint(c["value"]), "2025-01-0") {
		t.Errorf("date constraint: %v", c)
	}
	if fmt.Sprint(st[0]["segments"]) != fmt.Sprintf("[%d]", seg.ID) {
		t.Errorf("segments %v", st[0]["segments"])
	}

	// Edit: a new rollout, and a variant whose JSON payload is refused
	// next to its field until it parses.
	f.run("editing",
		click(`section[data-env=development] button[aria-label^="Edit flexibleRollout"]`),
		typeInto(`dialog input[name=rollout]`, "60"),
		clickButton("Add variant"),
		choose(`dialog select[name=variant-0-payload-type]`, "json"),
		typeInto(`dialog textarea[name=variant-0-payload]`, `{"color": "blue"`),
		clickButton("Save strategy"),
		waitText("dialog .field-error", "Not valid JSON"))
	if got := eval[string](f, `document.activeElement.name`); got != "variant-0-payload" {
		t.Errorf("focus on %q, not on the payload", got)
	}
	f.screenshot("strategy-invalid-json")
	if p := clientStrategies(t, s.url, flag)[0]["parameters"].(map[string]any); p["rollout"] != "35" {
		t.Errorf("saved despite the invalid payload: %v", p)
	}
	f.run("fixing the JSON",
		typeInto(`dialog textarea[name=variant-0-payload]`, `{"color": "blue"}`),
		clickButton("Save strategy"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`section[data-env=development] .summary`, "On for 60% of users"))
	st = clientStrategies(t, s.url, flag)
	if p := st[0]["parameters"].(map[string]any); p["rollout"] != "60" {
		t.Errorf("rollout after edit %v", p)
	}
	vs, _ := st[0]["variants"].([]any)
	if len(vs) != 1 || fmt.Sprint(vs[0].(map[string]any)["payload"]) != `map[type:json value:{"color": "blue"}]` {
		t.Errorf("variants %v", st[0]["variants"])
	}

	// Reorder: a second strategy moved to the top.
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features/"+flag+"/environments/development/strategies",
		obj{"name": "userWithId", "title": "vips", "parameters": obj{"userIds": "v1,v2"}})
	f.visit("/projects/default/features/"+flag, flag)
	f.run("moving up", click(`button[aria-label="Move vips (2) up"]`), waitText(`section[data-env=development] .strategy .title`, "1. vips"))
	if st := clientStrategies(t, s.url, flag); st[0]["name"] != "userWithId" || st[1]["name"] != "flexibleRollout" {
		t.Errorf("client order %v, %v", st[0]["name"], st[1]["name"])
	}

	// Drag and drop: vips dropped on the second place.
	f.run("dragging down", dragOnto(`section[data-env=development] .strategy:nth-of-type(1)`, `section[data-env=development] .strategy:nth-of-type(2)`),
		waitText(`section[data-env=development] .strategy .title`, "2. vips"))
	if st := clientStrategies(t, s.url, flag); st[0]["name"] != "flexibleRollout" || st[1]["name"] != "userWithId" {
		t.Errorf("client order after dragging %v, %v", st[0]["name"], st[1]["name"])
	}

	// Copy to another environment.
	f.run("copying to production", click(`button[aria-label="Copy vips (2) to production"]`),
		waitText(`section[data-env=production] .strategy .title`, "1. vips"))
	var prod struct {
		Strategies []map[string]any `json:"strategies"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/default/features/"+flag+"/environments/production", nil), &prod)
	if len(prod.Strategies) != 1 || fmt.Sprint(prod.Strategies[0]["parameters"]) != "map[userIds:v1,v2]" {
		t.Errorf("production strategies %v", prod.Strategies)
	}

	// Details and tags.
	f.run("editing details", clickButton("Edit details"),
		typeInto(`dialog textarea[name=description]`, "Rolls out the checkout"),
		choose(`dialog select[name=type]`, "experiment"),
		click(`dialog button[type=submit]`), waitText("p.lead", "Rolls out the checkout"))
	f.run("adding a tag", clickButton("Add tag"), typeInto(`dialog input[name=value]`, "checkout"),
		click(`dialog button[type=submit]`), waitText("dl.meta .tag", "simple:checkout"))
	var meta map[string]any
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/projects/default/features/"+flag, nil), &meta)
	if meta["description"] != "Rolls out the checkout" || meta["type"] != "experiment" || fmt.Sprint(meta["tags"]) != "[map[type:simple value:checkout]]" {
		t.Errorf("flag as stored: %v %v %v", meta["description"], meta["type"], meta["tags"])
	}

	// The flag's history lists what this flow did, with diffs.
	f.run("history", click(`details.history > summary`), waitText(`details.history details.event strong`, "feature-strategy-add"))
	f.screenshot("flag")
}

// archiveFlow archives a flag on its page and revives it in the archive.
func archiveFlow(t *testing.T, s *uiSuite) {
	const flag = "old-banner"
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": flag})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default/features/"+flag, flag)
	f.run("archiving", clickButton("Archive"), click(`dialog button.danger`), waitText("h1", "Default"))
	if hasClientFeature(t, s.url, flag) {
		t.Error("the client API still serves the archived flag")
	}
	f.visit("/archive", "Archive")
	f.screenshot("archive")
	f.run("reviving", click(`button[aria-label="Revive old-banner"]`), chromedp.WaitNotPresent(chromedp.CSS(`tr[data-flag="old-banner"]`)))
	if !hasClientFeature(t, s.url, flag) {
		t.Error("the client API does not serve the revived flag")
	}
}

// eventsFlow filters the event log and expands an event's diff.
func eventsFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "evproj", "name": "Events project"})
	adminCall(t, s.url, "PUT", "/api/admin/projects/evproj", obj{"name": "Events project 2"})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/events", "Event log")
	f.run("filtering",
		choose(`select[name=project]`, "evproj"),
		typeInto(`input[name=type]`, "project-updated"),
		waitJS(`document.querySelectorAll('details.event').length === 1`, "one event"))
	f.run("expanding", click(`details.event summary`), waitText("details.event[open] .diff", `"Events project 2"`))
	if got := f.textOf("details.event[open] p"); !strings.Contains(got, "name") {
		t.Errorf("changed keys: %q", got)
	}
	url := eval[string](f, "location.search")
	if !strings.Contains(url, "project=evproj") || !strings.Contains(url, "type=project-updated") {
		t.Errorf("filters not in the address: %s", url)
	}
	f.screenshot("events")
	f.run("a user filter matching nobody", typeInto(`input[name=user]`, "nobody-at-all"),
		waitText(".field-error", "No user matches nobody-at-all"))
}

// clientStrategies is the strategies of flag as the development client
// token sees them.
func clientStrategies(t *testing.T, server, flag string) []map[string]any {
	t.Helper()
	raw := clientFeature(t, server, clientToken, flag)["strategies"].([]any)
	out := make([]map[string]any, len(raw))
	for i, s := range raw {
		out[i] = s.(map[string]any)
	}
	return out
}

func hasClientFeature(t *testing.T, server, flag string) bool {
	t.Helper()
	_, data := call(t, "GET", server+"/api/client/features", clientToken, nil)
	return strings.Contains(string(data), `"name":"`+flag+`"`)
}

// segmentsContextFlow creates a segment and a context field through their
// pages, sees a segment in use refused deletion with the API's message, and
// shows the environments page.
func segmentsContextFlow(t *testing.T, s *uiSuite) {
	var used struct {
		ID int `json:"id"`
	}
	json.Unmarshal(adminCall(t, s.url, "POST", "/api/admin/segments", obj{"name": "in-use", "constraints": []obj{}}), &used)
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": "segment-user"})
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features/segment-user/environments/development/strategies",
		obj{"name": "default", "segments": []int{used.ID}})

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/context", "Context fields")
	f.run("creating a context field",
		clickButton("New context field"),
		typeInto(`dialog input[name=name]`, "country"),
		typeInto(`dialog textarea[name=legalValues]`, "no, se,dk"),
		click(`dialog input[name=stickiness]`),
		click(`dialog button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-context="country"]`)))
	var field map[string]any
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/context/country", nil), &field)
	if field["stickiness"] != true || len(field["legalValues"].([]any)) != 3 {
		t.Errorf("context field as stored: %v", field)
	}
	f.screenshot("context")

	f.visit("/segments", "Segments")
	f.run("creating a segment",
		clickButton("New segment"),
		typeInto(`dialog input[name=name]`, "nordics"),
		clickButton("Add constraint"),
		choose(`dialog select[name=constraint-0-context]`, "country"),
		typeInto(`dialog input[name=constraint-0-values]`, "no,se"),
		click(`dialog button[type=submit]`),
		waitText(`table.list th`, "nordics"))
	var segs struct {
		Segments []map[string]any `json:"segments"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/segments", nil), &segs)
	found := false
	for _, sg := range segs.Segments {
		if sg["name"] == "nordics" {
			found = fmt.Sprint(sg["constraints"]) == "[map[caseInsensitive:false contextName:country inverted:false operator:IN values:[no se]]]"
			if !found {
				t.Errorf("segment as stored: %v", sg["constraints"])
			}
		}
	}
	if !found {
		t.Error("segment not stored")
	}
	f.run("deleting a segment in use",
		click(`button[aria-label="Delete segment in-use"]`), click(`dialog button.danger`),
		waitJS(`!document.querySelector('main .alert').hidden`, "an error"))
	if got := f.textOf("main .alert"); got == "" {
		t.Error("no reason given")
	}
	f.screenshot("segments")
	f.visit("/environments", "Environments")
	f.run("creating an environment", clickButton("New environment"),
		typeInto(`dialog input[name=name]`, "staging"), choose(`dialog select[name=type]`, "preproduction"),
		click(`dialog button[type=submit]`), chromedp.WaitVisible(chromedp.CSS(`tr[data-env="staging"]`)),
		click(`button[aria-label="Move staging up"]`),
		waitJS(`[...document.querySelectorAll('tr[data-env]')].map(r => r.dataset.env).join() === 'development,staging,production'`, "the new order"))
	var envs struct {
		Environments []struct {
			Name      string `json:"name"`
			Type      string `json:"type"`
			SortOrder int    `json:"sortOrder"`
		} `json:"environments"`
	}
	json.Unmarshal(adminCall(t, s.url, "GET", "/api/admin/environments", nil), &envs)
	order := map[string]int{}
	for _, e := range envs.Environments {
		order[e.Name] = e.SortOrder
		if e.Name == "staging" && e.Type != "preproduction" {
			t.Errorf("staging has type %s", e.Type)
		}
	}
	if !(order["development"] < order["staging"] && order["staging"] < order["production"]) {
		t.Errorf("environment order %v", order)
	}
	f.screenshot("environments")
}

// playgroundFlow evaluates a flag for two users and reads the explanation.
// It needs POST /api/admin/playground, and skips on a server without it.
func playgroundFlow(t *testing.T, s *uiSuite) {
	if st, _ := call(t, "POST", s.url+"/api/admin/playground", adminToken, obj{"environment": "development", "context": obj{"appName": "x"}}); st == 404 || st == 405 {
		t.Skip("this server has no playground endpoint")
	}
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "pg", "name": "Playground project"})
	adminCall(t, s.url, "POST", "/api/admin/projects/pg/features", obj{"name": "pg-flag"})
	adminCall(t, s.url, "POST", "/api/admin/projects/pg/features/pg-flag/environments/development/strategies",
		obj{"name": "flexibleRollout", "parameters": obj{"rollout": "100", "stickiness": "default", "groupId": "pg-flag"},
			"constraints": []obj{constraint("userId", "IN", false, false, "alice")}})
	adminCall(t, s.url, "POST", "/api/admin/projects/pg/features/pg-flag/environments/development/on", nil)
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/playground", "Playground")
	f.run("alice", choose(`select[name=projects]`, "pg"), typeInto(`input[name=userId]`, "alice"), clickButton("Evaluate"),
		waitText(`details[data-flag="pg-flag"] summary`, "On"))
	f.run("bob", typeInto(`input[name=userId]`, "bob"), clickButton("Evaluate"),
		waitText(`details[data-flag="pg-flag"] summary`, "No strategy matched"),
		click(`details[data-flag="pg-flag"] summary`), waitText(`details[data-flag="pg-flag"] li.failed`, "userId IN alice"))
	f.screenshot("playground")
}

// variantsFlow sets a flag's variants in development: one fixed at 30%
// with a JSON payload and an override, one sharing the rest.
func variantsFlow(t *testing.T, s *uiSuite) {
	const flag = "variant-flag"
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": flag})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default/features/"+flag, flag)
	f.run("two variants",
		click(`button[aria-label="Edit variants in development"]`),
		clickButton("Add variant"), clickButton("Add variant"),
		typeInto(`dialog input[name=variant-0-name]`, "blue"),
		choose(`dialog select[name=variant-0-weight-type]`, "fix"),
		typeInto(`dialog input[name=variant-0-weight]`, "30"),
		choose(`dialog select[name=variant-0-payload-type]`, "json"),
		typeInto(`dialog textarea[name=variant-0-payload]`, `{"shade": 3`),
		clickButton("Add override to variant 1"),
		typeInto(`dialog input[aria-label="Override 1 of variant 1: values, comma-separated"]`, "u1, u2"),
		typeInto(`dialog input[name=variant-1-name]`, "green"),
		waitText("dialog .summary-box", "Fixed variants take 30%; the other 1 share 70%"),
		clickButton("Save variants"),
		waitText("dialog .field-error", "Not valid JSON"),
		typeInto(`dialog textarea[name=variant-0-payload]`, `{"shade": 3}`),
		clickButton("Save variants"),
		chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`section[data-env=development] .variants-line`, "green 70%"))
	vs, _ := clientFeature(t, s.url, clientToken, flag)["variants"].([]any)
	if len(vs) != 2 {
		t.Fatalf("client variants %v", vs)
	}
	blue := vs[0].(map[string]any)
	if blue["name"] != "blue" || blue["weight"] != float64(300) || fmt.Sprint(blue["payload"]) != `map[type:json value:{"shade": 3}]` ||
		fmt.Sprint(blue["overrides"]) != "[map[contextName:userId values:[u1 u2]]]" {
		t.Errorf("blue %v", blue)
	}
	if green := vs[1].(map[string]any); green["weight"] != float64(700) {
		t.Errorf("green %v", green)
	}
}

// csrfFlow signs in, then opens a page of another origin that tries to
// write with the session cookie: a form posted as text/plain (a JSON body
// in disguise) and a JSON fetch with credentials. Neither may change
// anything.
func csrfFlow(t *testing.T, s *uiSuite) {
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><body>
<form id="f" method="POST" action="%[1]s/api/admin/projects" enctype="text/plain">
<input name='{"id":"csrf-form","name":"x","pad":"' value='"}'></form>
<p id="fetched">pending</p>
<script>
fetch(%[2]q, {method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json'},
  body: JSON.stringify({id: 'csrf-fetch', name: 'x'})})
  .then(r => r.status, e => 'blocked').then(s => { document.getElementById('fetched').textContent = 'done ' + s; });
</script></body></html>`, s.url, s.url+"/api/admin/projects")
	}))
	t.Cleanup(evil.Close)
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.run("the foreign page's fetch", chromedp.Navigate(evil.URL), waitText("#fetched", "done"))
	f.run("the foreign page's form", evalJS(`document.getElementById('f').submit()`),
		waitJS(`document.readyState === 'complete' && !document.getElementById('fetched')`, "the form's answer"))
	for _, id := range []string{"csrf-form", "csrf-fetch"} {
		if st, _ := call(t, "GET", s.url+"/api/admin/projects/"+id, adminToken, nil); st != http.StatusNotFound {
			t.Errorf("a write from another origin created project %s (%d)", id, st)
		}
	}
}

// usageFlow reports metrics as an SDK does and reads them on the flag page.
func usageFlow(t *testing.T, s *uiSuite) {
	const flag = "used-flag"
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": flag})
	now := time.Now().UTC()
	st, data := call(t, "POST", s.url+"/api/client/metrics", clientToken, obj{"appName": "shop-web", "instanceId": "i1",
		"bucket": obj{"start": now.Add(-time.Minute).Format(time.RFC3339), "stop": now.Format(time.RFC3339),
			"toggles": obj{flag: obj{"yes": 12, "no": 3, "variants": obj{"blue": 5}}}}})
	if st/100 != 2 {
		t.Fatalf("metrics: %d %s", st, data)
	}
	// The server writes buffered metrics every few seconds.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(string(adminCall(t, s.url, "GET", "/api/admin/client-metrics/features/"+flag, nil)), "shop-web") {
		if time.Now().After(deadline) {
			t.Fatal("the metrics were not stored in 30 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default/features/"+flag, flag)
	f.run("usage", click(`details.usage-box > summary`),
		waitText(`[data-usage-env=development] .usage-totals`, "12 yes, 3 no in the last 48 hours; variants: blue 5"),
		waitText(`details.usage-box ul.apps`, "shop-web"))
	if n := f.count(`[data-usage-env=development] svg[role=img] rect.yes`); n != 1 {
		t.Errorf("%d yes bars", n)
	}
	f.screenshot("usage")
}

// dependencyFlow makes a flag depend on a parent being off.
func dependencyFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": "dep-parent"})
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": "dep-child"})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default/features/dep-child", "dep-child")
	f.run("adding a parent", clickButton("Add parent flag"),
		clickButton("Add dependency"), waitText("dialog .field-error", "Choose the parent flag"),
		choose(`dialog select[name=parent]`, "dep-parent"), choose(`dialog select[name=state]`, "off"),
		clickButton("Add dependency"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText("dd.deps .tag", "dep-parent off"))
	deps := fmt.Sprint(clientFeature(t, s.url, clientToken, "dep-child")["dependencies"])
	if deps != "[map[enabled:false feature:dep-parent]]" {
		t.Errorf("client dependencies %s", deps)
	}
	f.run("removing it", click(`button[aria-label="Remove dependency on dep-parent"]`), waitText("dd.deps", "Nothing"))
	if deps := clientFeature(t, s.url, clientToken, "dep-child")["dependencies"]; deps != nil {
		t.Errorf("client dependencies after removal %v", deps)
	}
}

// samlButtonFlow turns SAML sign-in on and finds its button on the
// sign-in page.
func samlButtonFlow(t *testing.T, s *uiSuite, idp *samltest.IDP) {
	adminCall(t, s.url, "POST", "/api/admin/auth/saml/settings", obj{"enabled": true, "entityId": idp.EntityID,
		"signOnUrl": idp.SignOnURL, "certificate": idp.CertificatePEM})
	f := s.newFlow(t)
	f.run("the sign-in page", chromedp.Navigate(s.url+"/login"), waitText("a.button", "Sign in with SAML"))
	if href := eval[string](f, `document.querySelector('a.button').getAttribute('href')`); href != "/auth/saml/login" {
		t.Errorf("SAML button goes to %q", href)
	}
}

// pagesFlow lists a project with more flags than one page holds.
func pagesFlow(t *testing.T, s *uiSuite) {
	adminCall(t, s.url, "POST", "/api/admin/projects", obj{"id": "big", "name": "Big project"})
	for i := range 120 {
		adminCall(t, s.url, "POST", "/api/admin/projects/big/features", obj{"name": fmt.Sprintf("big-%03d", i)})
	}
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/big", "Big project")
	f.run("first page", waitText("p.count", "120 flags"), waitText(".pager span", "Page 1 of 3"))
	if n := f.count("tr[data-flag]"); n != 50 {
		t.Errorf("%d rows on a page", n)
	}
	f.run("last page", clickButton("Next page"), clickButton("Next page"), waitText(".pager span", "Page 3 of 3"),
		waitJS(`document.querySelectorAll('tr[data-flag]').length === 20`, "20 rows"))
	f.run("a search goes back to page 1", typeInto(`#flag-search`, "big-11"),
		waitText("p.count", "10 of 120 flags match"), waitJS(`!document.querySelector('.pager span')`, "one page"))
}

// customStrategyFlow fills in a custom strategy whose editor is built from
// its definition: one field per parameter, by declared type.
func customStrategyFlow(t *testing.T, s *uiSuite) {
	const flag = "custom-flag"
	adminCall(t, s.url, "POST", "/api/admin/strategies", obj{"name": "tiered", "title": "By tier", "parameters": []obj{
		{"name": "tier", "type": "string", "required": true}, {"name": "share", "type": "percentage"},
		{"name": "strict", "type": "boolean"}, {"name": "ids", "type": "list"}, {"name": "limit", "type": "number"},
	}})
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": flag})
	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default/features/"+flag, flag)
	f.run("a custom strategy",
		click(`button[aria-label="Add strategy in development"]`),
		choose(`dialog select[name=strategy]`, "tiered"),
		typeInto(`dialog input[name=tier]`, "gold"),
		typeInto(`dialog input[name=share]`, "40"),
		choose(`dialog select[name=strict]`, "true"),
		typeInto(`dialog textarea[name=ids]`, "a, b ,c"),
		typeInto(`dialog input[name=limit]`, "7"),
		waitText("dialog .summary-box", "Strategy tiered with"),
		clickButton("Save strategy"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`section[data-env=development] .strategy .title`, "tiered"))
	st := clientStrategies(t, s.url, flag)
	if len(st) != 1 || st[0]["name"] != "tiered" ||
		fmt.Sprint(st[0]["parameters"]) != "map[ids:a,b,c limit:7 share:40 strict:true tier:gold]" {
		t.Errorf("client strategies %v", st)
	}
}

// sdkFlow has the Node SDK poll the server while a person edits a rollout
// and switches the flag off in the UI: each edit reaches isEnabled.
func sdkFlow(t *testing.T, s *uiSuite) {
	const flag = "sdk-rollout"
	base := "/api/admin/projects/default/features/" + flag + "/environments/development"
	adminCall(t, s.url, "POST", "/api/admin/projects/default/features", obj{"name": flag})
	adminCall(t, s.url, "POST", base+"/strategies", obj{"name": "flexibleRollout",
		"parameters": obj{"rollout": "0", "stickiness": "default", "groupId": flag}})
	adminCall(t, s.url, "POST", base+"/on", nil)

	sdk := startStreamingSDK(t, s.url, clientToken, "polling")
	user := obj{"userId": "sdk-user-1"}
	sdk.check(flag, user, false, "")

	f := s.newFlow(t)
	f.login("admin", s.password)
	f.visit("/projects/default/features/"+flag, flag)
	f.run("rolling out to everyone",
		click(`section[data-env=development] button[aria-label^="Edit flexibleRollout"]`),
		typeInto(`dialog input[name=rollout]`, "100"),
		clickButton("Save strategy"), chromedp.WaitNotPresent(chromedp.CSS("dialog")),
		waitText(`section[data-env=development] .summary`, "On for 100% of users"))
	sdk.check(flag, user, true, "")

	f.run("switching off in development",
		click(`button[aria-label="Toggle `+flag+` in development"]`),
		waitJS(`document.querySelector('button[aria-label="Toggle `+flag+` in development"]').getAttribute('aria-checked') === 'false'`, "the switch off"))
	sdk.check(flag, user, false, "")
	f.screenshot("sdk-rollout")
}
