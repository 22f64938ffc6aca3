package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/migrate"
)

// requireUnleash returns the directory with the real Unleash server
// installed (test/unleash), skipping the test when it is missing, except
// under CI where that is a failure.
func requireUnleash(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs("../unleash")
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "unleash-server", "package.json"))
	if nodeErr != nil || modErr != nil {
		msg := "node or unleash-server is missing: run (cd test/unleash && npm ci --ignore-scripts)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

const unleashAdmin = "*:*.e2e-unleash-admin-secret"

// unleashAPI calls a real Unleash's admin API with the admin token.
type unleashAPI struct {
	t    *testing.T
	base string
}

func (u unleashAPI) call(method, path string, body any) []byte {
	u.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, u.base+path, rd)
	req.Header.Set("Authorization", unleashAdmin)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		u.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		b, _ := json.Marshal(body)
		u.t.Fatalf("%s %s %s: %d %s", method, path, b, res.StatusCode, out)
	}
	return out
}

type uObj = map[string]any

// startRealUnleash runs unleash-server on a fresh PostgreSQL database and
// returns its base URL and the database.
func startRealUnleash(t *testing.T, dir string) (string, *sql.DB) {
	dbURL := pgtest.Start(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	port := freePort(t)
	env := []string{
		"DATABASE_HOST=" + u.Query().Get("host"),
		"DATABASE_USERNAME=" + u.User.Username(),
		"DATABASE_NAME=" + strings.TrimPrefix(u.Path, "/"),
		"DATABASE_SSL=false",
		"HTTP_HOST=127.0.0.1",
		fmt.Sprintf("HTTP_PORT=%d", port),
		"INIT_ADMIN_API_TOKENS=" + unleashAdmin,
		"TZ=UTC",
		"LOG_LEVEL=warn",
		"CHECK_VERSION=false",
		"SEND_TELEMETRY=false",
	}
	p := start(t, env, "node", filepath.Join(dir, "start.mjs"))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(3 * time.Minute)
	for {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/admin/environments", nil)
		req.Header.Set("Authorization", unleashAdmin)
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Unleash did not start; output:\n%s", p.Output())
		}
		time.Sleep(300 * time.Millisecond)
	}
	return base, db
}

// Every constraint operator Unleash knows, with values for a constraint
// that some generated contexts meet and others do not.
var unleashOperators = []uObj{
	{"contextName": "country", "operator": "IN", "values": []string{"no", "se"}},
	{"contextName": "country", "operator": "NOT_IN", "values": []string{"dk"}},
	{"contextName": "country", "operator": "IN", "values": []string{"NO"}, "caseInsensitive": true},
	{"contextName": "email", "operator": "STR_CONTAINS", "values": []string{"admin"}},
	{"contextName": "email", "operator": "STR_STARTS_WITH", "values": []string{"ops"}, "caseInsensitive": true},
	{"contextName": "email", "operator": "STR_ENDS_WITH", "values": []string{"example.com"}, "inverted": true},
	{"contextName": "age", "operator": "NUM_EQ", "value": "30"},
	{"contextName": "age", "operator": "NUM_GT", "value": "40"},
	{"contextName": "age", "operator": "NUM_GTE", "value": "18"},
	{"contextName": "age", "operator": "NUM_LT", "value": "65"},
	{"contextName": "age", "operator": "NUM_LTE", "value": "17"},
	{"contextName": "currentTime", "operator": "DATE_AFTER", "value": "2026-01-01T00:00:00.000Z"},
	{"contextName": "currentTime", "operator": "DATE_BEFORE", "value": "2026-03-01T00:00:00.000Z"},
	{"contextName": "appVersion", "operator": "SEMVER_EQ", "value": "2.0.0"},
	{"contextName": "appVersion", "operator": "SEMVER_GT", "value": "2.1.0"},
	{"contextName": "appVersion", "operator": "SEMVER_LT", "value": "3.0.0"},
	{"contextName": "userId", "operator": "IN", "values": []string{"u1", "u2", "u3"}, "inverted": true},
}

func uRollout(pct int, stickiness, group string) uObj {
	return uObj{"name": "flexibleRollout", "parameters": uObj{"rollout": fmt.Sprint(pct), "stickiness": stickiness, "groupId": group}, "constraints": []any{}}
}

func uVariant(name string, weight int, payload uObj) uObj {
	v := uObj{"name": name, "weight": weight, "weightType": "variable", "stickiness": "default"}
	if payload != nil {
		v["payload"] = payload
	}
	return v
}

// loadUnleashFixture fills a real Unleash through its admin API: two projects,
// three environments, every strategy and constraint operator, segments,
// flag and strategy variants with payloads, dependencies, tags, archived
// flags, a custom strategy type, tokens and users. It returns the names
// of the active flags and one client token per environment.
func loadUnleashFixture(t *testing.T, api unleashAPI, db *sql.DB) (flags, clientTokens []string, frontendToken string) {
	// The open-source Unleash creates neither projects nor environments
	// through its API (only its enterprise edition does); they go into its
	// database directly, before anything refers to them.
	for _, q := range []string{
		`INSERT INTO environments (name, type, sort_order, enabled) VALUES ('staging', 'test', 5, true)`,
		`INSERT INTO projects (id, name, description) VALUES ('payments', 'Payments', 'money things')`,
		`INSERT INTO project_environments (project_id, environment_name) VALUES ('payments', 'development'), ('payments', 'production')`,
	} {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	api.call("POST", "/api/admin/projects/default/environments", uObj{"environment": "staging"})
	api.call("POST", "/api/admin/projects/payments/environments", uObj{"environment": "staging"})

	for _, f := range []uObj{
		{"name": "country", "description": "two-letter code", "stickiness": false, "legalValues": []uObj{{"value": "no"}, {"value": "se", "description": "Sweden"}, {"value": "dk"}, {"value": "NO"}}},
		{"name": "email", "description": "e-mail"},
		{"name": "age", "description": "years"},
		{"name": "appVersion", "description": "version of the app"},
		{"name": "tenant", "description": "customer", "stickiness": true},
	} {
		api.call("POST", "/api/admin/context", f)
	}
	api.call("POST", "/api/admin/strategies", uObj{"name": "byTenant", "description": "on for listed tenants",
		"parameters": []uObj{{"name": "tenants", "type": "list", "description": "tenant ids", "required": true}}})
	// Unleash 8 no longer ships the older strategies that SDKs still
	// evaluate; instances that used them define them as custom ones.
	for name, param := range map[string]string{"userWithId": "userIds", "gradualRolloutUserId": "percentage", "gradualRolloutSessionId": "percentage", "gradualRolloutRandom": "percentage"} {
		api.call("POST", "/api/admin/strategies", uObj{"name": name, "description": "older built-in",
			"parameters": []uObj{{"name": param, "type": "string", "description": param, "required": false}}})
	}
	api.call("POST", "/api/admin/tag-types", uObj{"name": "team", "description": "owning team"})

	segID := func(body []byte) int {
		var s struct {
			ID int `json:"id"`
		}
		json.Unmarshal(body, &s)
		return s.ID
	}
	// A first segment that is then deleted, so that ids have a gap.
	gone := segID(api.call("POST", "/api/admin/segments", uObj{"name": "gone", "constraints": []any{}}))
	api.call("DELETE", fmt.Sprintf("/api/admin/segments/%d", gone), nil)
	beta := segID(api.call("POST", "/api/admin/segments", uObj{"name": "beta", "description": "beta testers",
		"constraints": []uObj{{"contextName": "email", "operator": "STR_ENDS_WITH", "values": []string{"example.com"}}}}))
	adults := segID(api.call("POST", "/api/admin/segments", uObj{"name": "adults",
		"constraints": []uObj{{"contextName": "age", "operator": "NUM_GTE", "value": "18"}}}))
	tenants := segID(api.call("POST", "/api/admin/segments", uObj{"name": "tenants", "project": "payments",
		"constraints": []uObj{{"contextName": "tenant", "operator": "IN", "values": []string{"t1", "t2", "t3", "t4", "t5"}}}}))

	var active []string
	flag := func(project, name, typ string) string {
		api.call("POST", "/api/admin/projects/"+project+"/features", uObj{"name": name, "type": typ, "description": "flag " + name, "impressionData": len(name)%2 == 0})
		active = append(active, name)
		return "/api/admin/projects/" + project + "/features/" + name
	}
	strategy := func(path, env string, s uObj) {
		api.call("POST", path+"/environments/"+env+"/strategies", s)
	}
	on := func(path, env string) { api.call("POST", path+"/environments/"+env+"/on", nil) }
	// Unleash 8 refuses new flag-level variants (it keeps those of older
	// versions and serves them); they are written as an older version left
	// them, before the flag is switched on, which makes Unleash reload it.
	variants := func(path, env string, vs []uObj) {
		b, _ := json.Marshal(vs)
		name := path[strings.LastIndex(path, "/")+1:]
		res, err := db.ExecContext(t.Context(), `UPDATE feature_environments SET variants = $1 WHERE feature_name = $2 AND environment = $3`, string(b), name, env)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			t.Fatalf("variants of %s in %s: %d rows", name, env, n)
		}
	}

	// One flag per operator, in all three environments.
	for i, c := range unleashOperators {
		p := flag("default", fmt.Sprintf("op-%02d-%s", i, strings.ToLower(c["operator"].(string))), "release")
		for _, env := range []string{"development", "production", "staging"} {
			s := uRollout(100, "default", "")
			s["constraints"] = []uObj{c}
			strategy(p, env, s)
			if env != "production" || i%2 == 0 {
				on(p, env)
			}
		}
	}
	// Every built-in strategy and the custom one.
	strategies := map[string]uObj{
		"default":                 {"name": "default", "parameters": uObj{}},
		"user-with-id":            {"name": "userWithId", "parameters": uObj{"userIds": "u1,u5,u7"}},
		"rollout-user-id":         {"name": "gradualRolloutUserId", "parameters": uObj{"percentage": "40", "groupId": "g1"}},
		"rollout-session-id":      {"name": "gradualRolloutSessionId", "parameters": uObj{"percentage": "60", "groupId": "g2"}},
		"rollout-random-all":      {"name": "gradualRolloutRandom", "parameters": uObj{"percentage": "100"}},
		"flexible-user":           uRollout(37, "userId", "flex"),
		"flexible-session":        uRollout(55, "sessionId", "flex2"),
		"flexible-default":        uRollout(25, "default", "flex3"),
		"flexible-custom-sticky":  uRollout(50, "tenant", "flex4"),
		"remote-address":          {"name": "remoteAddress", "parameters": uObj{"IPs": "10.0.0.1, 10.1.0.0/16"}},
		"application-hostname":    {"name": "applicationHostname", "parameters": uObj{"hostNames": "nowhere.example"}},
		"custom-by-tenant":        {"name": "byTenant", "parameters": uObj{"tenants": "t1"}},
		"flexible-zero":           uRollout(0, "default", "zero"),
		"flexible-with-segments":  uRollout(100, "default", "seg"),
		"flexible-with-variants":  uRollout(100, "userId", "sv"),
		"disabled-strategy-first": uRollout(100, "default", "dis"),
	}
	for _, name := range uSortedKeys(strategies) {
		s := strategies[name]
		p := flag("default", "s-"+name, "experiment")
		switch name {
		case "flexible-with-segments":
			s["segments"] = []int{beta, adults}
		case "flexible-with-variants":
			s["variants"] = []uObj{
				uVariant("red", 500, uObj{"type": "json", "value": `{"color":"red"}`}),
				uVariant("green", 500, uObj{"type": "number", "value": "7"}),
			}
			s["title"] = "coloured"
		case "disabled-strategy-first":
			s["disabled"] = true
		}
		strategy(p, "development", s)
		if name == "disabled-strategy-first" {
			strategy(p, "development", uObj{"name": "userWithId", "parameters": uObj{"userIds": "u2"}})
		}
		on(p, "development")
		strategy(p, "staging", uRollout(100, "default", ""))
		on(p, "staging")
	}
	// Flag-level variants with every payload type, fixed weights and
	// overrides.
	for i, vs := range [][]uObj{
		{uVariant("a", 500, uObj{"type": "string", "value": "A"}), uVariant("b", 500, uObj{"type": "json", "value": `{"b":true}`})},
		{uVariant("one", 300, uObj{"type": "csv", "value": "x,y"}), uVariant("two", 700, uObj{"type": "number", "value": "2"})},
		{{"name": "fixed", "weight": 200, "weightType": "fix", "stickiness": "default"}, uVariant("rest", 800, nil)},
		{{"name": "vip", "weight": 500, "weightType": "variable", "stickiness": "default", "overrides": []uObj{{"contextName": "userId", "values": []string{"u4", "u9"}}}}, uVariant("plain", 500, nil)},
		{{"name": "by-tenant", "weight": 1000, "weightType": "variable", "stickiness": "tenant", "payload": uObj{"type": "string", "value": "t"}}},
	} {
		p := flag("default", fmt.Sprintf("v-%d", i), "experiment")
		for _, env := range []string{"development", "staging"} {
			strategy(p, env, uRollout(100, "default", ""))
			variants(p, env, vs)
			on(p, env)
		}
	}
	// Strategy order and several strategies per flag.
	for i := range 4 {
		p := flag("default", fmt.Sprintf("multi-%d", i), "release")
		strategy(p, "development", uObj{"name": "userWithId", "parameters": uObj{"userIds": "u3"}, "sortOrder": 2})
		strategy(p, "development", uRollout(10*(i+1), "userId", "m"))
		s := uRollout(100, "default", "")
		s["constraints"] = []uObj{unleashOperators[i]}
		s["sortOrder"] = 1
		strategy(p, "development", s)
		on(p, "development")
	}
	// Dependencies.
	parent := flag("default", "dep-parent", "release")
	strategy(parent, "development", uRollout(50, "userId", "parent"))
	variants(parent, "development", []uObj{uVariant("left", 500, nil), uVariant("right", 500, nil)})
	on(parent, "development")
	for i, dep := range []uObj{
		{"feature": "dep-parent"},
		{"feature": "dep-parent", "enabled": false},
		{"feature": "dep-parent", "variants": []string{"left"}},
	} {
		p := flag("default", fmt.Sprintf("dep-child-%d", i), "release")
		strategy(p, "development", uRollout(100, "default", ""))
		on(p, "development")
		api.call("POST", p+"/dependencies", dep)
	}
	// Tags and a stale flag.
	tagged := flag("default", "tagged", "operational")
	api.call("POST", "/api/admin/features/tagged/tags", uObj{"type": "team", "value": "web"})
	api.call("POST", "/api/admin/features/tagged/tags", uObj{"type": "simple", "value": "ui"})
	api.call("POST", "/api/admin/projects/default/stale", uObj{"features": []string{"tagged"}, "stale": true})
	strategy(tagged, "production", uObj{"name": "default", "parameters": uObj{}})
	on(tagged, "production")
	// The payments project.
	for i := range 8 {
		p := flag("payments", fmt.Sprintf("pay-%d", i), []string{"release", "kill-switch", "permission", "operational"}[i%4])
		s := uRollout(20*(i%5+1), "tenant", "pay")
		s["segments"] = []int{tenants}
		if i%3 == 0 {
			s["constraints"] = []uObj{unleashOperators[(i+5)%len(unleashOperators)]}
		}
		strategy(p, "development", s)
		strategy(p, "production", uObj{"name": "byTenant", "parameters": uObj{"tenants": "t2"}})
		on(p, "development")
		if i%2 == 0 {
			on(p, "production")
		}
	}
	// Archived flags.
	for i := range 3 {
		p := flag("default", fmt.Sprintf("archived-%d", i), "release")
		strategy(p, "development", uRollout(100, "default", ""))
		api.call("DELETE", p, nil)
		active = active[:len(active)-1]
	}
	// Tokens: one client token per environment, a frontend token.
	for _, tk := range []uObj{
		{"tokenName": "backend-dev", "type": "backend", "environment": "development", "projects": []string{"*"}},
		{"tokenName": "backend-prod", "type": "backend", "environment": "production", "projects": []string{"default", "payments"}},
		{"tokenName": "backend-staging", "type": "backend", "environment": "staging", "projects": []string{"default"}},
	} {
		var res struct {
			Secret string `json:"secret"`
		}
		json.Unmarshal(api.call("POST", "/api/admin/api-tokens", tk), &res)
		clientTokens = append(clientTokens, res.Secret)
	}
	var fe struct {
		Secret string `json:"secret"`
	}
	json.Unmarshal(api.call("POST", "/api/admin/api-tokens", uObj{"tokenName": "web", "type": "frontend", "environment": "development", "projects": []string{"default"}}), &fe)
	// Users.
	api.call("POST", "/api/admin/user-admin", uObj{"email": "editor@example.com", "name": "Eddie Editor", "rootRole": 2, "sendEmail": false})
	api.call("POST", "/api/admin/user-admin", uObj{"email": "viewer@example.com", "name": "Vera Viewer", "rootRole": 3, "sendEmail": false})
	api.call("POST", "/api/admin/user-admin", uObj{"username": "admin2", "name": "Second Admin", "rootRole": 1, "sendEmail": false})
	return active, clientTokens, fe.Secret
}

func uSortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// runMigrateCmd runs the signalbox binary to completion.
func runMigrateCmd(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

// TestMigrateFromRealUnleash copies a real Unleash server, loaded with a
// rich fixture through its admin API, into Signalbox, and checks that
// verify finds no difference, that the Node SDK with the same client token
// gets the same answers from both servers, and that a second run changes
// nothing.
func TestMigrateFromRealUnleash(t *testing.T) {
	dir := requireUnleash(t)
	compat := requireNode(t)
	unleashURL, db := startRealUnleash(t, dir)
	api := unleashAPI{t: t, base: unleashURL}
	flags, clientTokens, frontendToken := loadUnleashFixture(t, api, db)
	if len(flags) < 50 {
		t.Fatalf("the fixture has %d active flags", len(flags))
	}

	dataDir := t.TempDir()
	env := []string{"DATA_DIR=" + dataDir, "UNLEASH_SOURCE_URL=" + unleashURL, "UNLEASH_SOURCE_TOKEN=" + unleashAdmin}
	stdout, stderr, code := runMigrateCmd(t, env, "migrate", "from-unleash", "--dry-run")
	if code != 0 || !strings.Contains(stdout, "Dry run") {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = runMigrateCmd(t, env, "migrate", "from-unleash")
	if code != 0 {
		t.Fatalf("migration: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("migration summary:\n%s", stdout)
	if !strings.Contains(stdout, "archived flags") || !strings.Contains(stdout, "passwords") {
		t.Errorf("the summary does not list what was not carried:\n%s", stdout)
	}

	port := freePort(t)
	srv := start(t, []string{"DATA_DIR=" + dataDir, fmt.Sprintf("PORT=%d", port), "HTTP_HOST=127.0.0.1", "ADMIN_PASSWORD=Correct-Horse-Battery-9"}, binary, "server")
	sbURL := base(port)
	waitFor(t, sbURL+"/health", http.StatusOK, srv)

	stdout, stderr, code = runMigrateCmd(t, nil, "migrate", "verify", "--url", unleashURL, "--signalbox-url", sbURL,
		"--client-token", strings.Join(clientTokens, ","), "--contexts", "600")
	if code != 0 {
		t.Fatalf("verify: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The Node SDK, with the same client token, against both servers.
	for _, tok := range clientTokens {
		req, _ := http.NewRequest(http.MethodGet, unleashURL+"/api/client/features", nil)
		req.Header.Set("Authorization", tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var payload clientapi.Features
		json.NewDecoder(res.Body).Decode(&payload)
		res.Body.Close()
		var names []string
		for _, f := range payload.Features {
			names = append(names, f.Name)
		}
		var ctxs []uObj
		for _, c := range migrate.GenerateContexts(&payload, 520, 3) {
			w := uObj{"userId": c.UserID, "sessionId": c.SessionID, "remoteAddress": c.RemoteAddress, "appName": c.AppName, "environment": c.Environment, "properties": c.Properties}
			if !c.CurrentTime.IsZero() {
				w["currentTime"] = c.CurrentTime.Format(time.RFC3339)
			}
			ctxs = append(ctxs, w)
		}
		casesFile := filepath.Join(t.TempDir(), "cases.json")
		data, _ := json.Marshal(uObj{"flags": names, "contexts": ctxs})
		if err := os.WriteFile(casesFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		answers := func(server string) []json.RawMessage {
			out := runNode(t, compat, "server-sdk.cjs", "URL="+server+"/api", "TOKEN="+tok, "CASES="+casesFile)
			var got struct {
				Results []json.RawMessage `json:"results"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("SDK output: %v", err)
			}
			return got.Results
		}
		fromUnleash, fromSignalbox := answers(unleashURL), answers(sbURL)
		if len(fromUnleash) != len(names)*len(ctxs) || len(fromUnleash) != len(fromSignalbox) {
			t.Fatalf("token %s: %d and %d answers for %d flags × %d contexts", tok[:12], len(fromUnleash), len(fromSignalbox), len(names), len(ctxs))
		}
		differ := 0
		for i := range fromUnleash {
			if string(fromUnleash[i]) != string(fromSignalbox[i]) {
				if differ < 5 {
					t.Errorf("token %s: Unleash %s\nSignalbox %s", tok[:12], fromUnleash[i], fromSignalbox[i])
				}
				differ++
			}
		}
		t.Logf("token %s…: %d flags × %d contexts, %d answers differ", tok[:12], len(names), len(ctxs), differ)
	}

	// Strategy ids are kept, and the copied admin token works on
	// Signalbox's admin API.
	strategyIDs := func(server string) string {
		api := unleashAPI{t: t, base: server}
		var f struct {
			Environments []struct {
				Name       string `json:"name"`
				Strategies []struct {
					ID string `json:"id"`
				} `json:"strategies"`
			} `json:"environments"`
		}
		json.Unmarshal(api.call("GET", "/api/admin/projects/default/features/multi-2", nil), &f)
		var ids []string
		for _, e := range f.Environments {
			for _, s := range e.Strategies {
				ids = append(ids, e.Name+":"+s.ID)
			}
		}
		sort.Strings(ids)
		return strings.Join(ids, " ")
	}
	if a, b := strategyIDs(unleashURL), strategyIDs(sbURL); a != b || strings.Count(a, ":") != 3 {
		t.Errorf("strategy ids of multi-2: Unleash %q, Signalbox %q", a, b)
	}

	// The frontend token, same secret, gets the same toggles from both
	// servers' frontend API. Every context has a sessionId: without one
	// each server draws a random one.
	frontend := func(server, query string) string {
		req, _ := http.NewRequest(http.MethodGet, server+"/api/frontend?"+query, nil)
		req.Header.Set("Authorization", frontendToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body struct {
			Toggles []struct {
				Name    string `json:"name"`
				Enabled bool   `json:"enabled"`
				Variant struct {
					Name    string             `json:"name"`
					Enabled bool               `json:"enabled"`
					Payload *clientapi.Payload `json:"payload"`
				} `json:"variant"`
			} `json:"toggles"`
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s/api/frontend: %d", server, res.StatusCode)
		}
		json.NewDecoder(res.Body).Decode(&body)
		var lines []string
		for _, tg := range body.Toggles {
			lines = append(lines, fmt.Sprintf("%s %t %s %t %v", tg.Name, tg.Enabled, tg.Variant.Name, tg.Variant.Enabled, tg.Variant.Payload))
		}
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	for _, q := range []string{"userId=u1&sessionId=s1", "userId=u4&sessionId=s4&properties[country]=no&properties[age]=30", "sessionId=s9&properties[email]=ops@example.com&properties[appVersion]=2.0.0"} {
		if a, b := frontend(unleashURL, q), frontend(sbURL, q); a != b || a == "" {
			t.Errorf("frontend API for %s:\nUnleash:\n%s\nSignalbox:\n%s", q, a, b)
		}
	}

	// A second run changes nothing.
	stdout, stderr, code = runMigrateCmd(t, env, "migrate", "from-unleash")
	if code != 0 || !strings.Contains(stdout, "\n0 objects created or updated") {
		t.Errorf("second run: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// A flag switched off in Unleash afterwards: verify sees it (Unleash
	// serves the change once its own cache catches up), the next run
	// carries exactly that change, and verify passes again.
	api.call("POST", "/api/admin/projects/default/features/s-default/environments/development/off", nil)
	verify := func() (string, int) {
		out, errOut, code := runMigrateCmd(t, nil, "migrate", "verify", "--url", unleashURL, "--signalbox-url", sbURL,
			"--client-token", clientTokens[0], "--contexts", "100")
		return out + errOut, code
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, code := verify()
		if code == 1 && strings.Contains(out, "s-default") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("verify did not see the flag switched off in Unleash: exit %d\n%s", code, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
	stdout, stderr, code = runMigrateCmd(t, env, "migrate", "from-unleash")
	if code != 0 || !strings.Contains(stdout, "\n1 objects created or updated") {
		t.Errorf("run after a change: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The running server sees what another process wrote at its next poll
	// of the store's revision.
	deadline = time.Now().Add(30 * time.Second)
	for {
		out, code := verify()
		if code == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("verify after carrying the change: exit %d\n%s", code, out)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
