package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// The tokens every e2e server starts with.
const (
	adminToken  = "*:*.e2e-admin-secret-0123456789abcdef"
	clientToken = "default:development.e2e-client-secret-0123456789abcdef"
	clientKey   = "e2e-proxy-client-key"
)

// startServer runs "signalbox server" on SQLite in a temp dir (or on
// databaseURL when given) and waits until it is ready.
func startServer(t *testing.T, databaseURL string) string {
	t.Helper()
	url, _ := startServerIn(t, t.TempDir(), databaseURL, freePort(t))
	return url
}

// startServerIn runs "signalbox server" with its SQLite file in dataDir (or
// on databaseURL) on port, and returns its URL and process.
func startServerIn(t *testing.T, dataDir, databaseURL string, port int) (string, *process) {
	t.Helper()
	env := map[string]string{
		"PORT": itoa(port), "HTTP_HOST": "127.0.0.1", "DATA_DIR": dataDir,
		"INIT_ADMIN_API_TOKENS": adminToken, "INIT_CLIENT_API_TOKENS": clientToken,
		"ADMIN_PASSWORD": "E2e-Password-7", "LOG_LEVEL": "warn",
	}
	if databaseURL != "" {
		env["DATABASE_URL"] = databaseURL
	}
	p := start(t, envList(env), binary, "server")
	waitFor(t, base(port)+"/ready", http.StatusOK, p)
	return base(port), p
}

// startProxy runs "signalbox proxy" against upstream (a server's base URL).
func startProxy(t *testing.T, upstream string, extra map[string]string) string {
	t.Helper()
	url, _ := startProxyIn(t, upstream, t.TempDir(), freePort(t), extra, http.StatusOK)
	return url
}

// startProxyIn runs "signalbox proxy" with its backup in backupDir and waits
// until /proxy/health answers wantHealth.
func startProxyIn(t *testing.T, upstream, backupDir string, port int, extra map[string]string, wantHealth int) (string, *process) {
	t.Helper()
	env := map[string]string{
		"PORT": itoa(port), "SERVICE_URL": upstream + "/api", "SERVICE_API_TOKEN": clientToken,
		"SERVICE_PROXY_CLIENT_KEYS": clientKey, "SERVICE_FETCH_INTERVAL": "500", "SERVICE_METRICS_INTERVAL": "1000",
		"ENABLE_ALL_ENDPOINT": "true", "SIGNALBOX_PROXY_BACKUP_DIR": backupDir, "LOG_LEVEL": "warn",
	}
	for k, v := range extra {
		env[k] = v
	}
	p := start(t, envList(env), binary, "proxy")
	waitFor(t, base(port)+"/proxy/health", wantHealth, p)
	return base(port), p
}

func itoa(i int) string { return strconv.Itoa(i) }

// call sends a JSON request with a token and returns status and body.
func call(t *testing.T, method, url, token string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

// admin sends an admin API request and fails the test on a non-2xx answer.
func admin(t *testing.T, server, method, path string, body any) []byte {
	t.Helper()
	status, data := call(t, method, server+path, adminToken, body)
	if status/100 != 2 {
		t.Fatalf("%s %s: %d %s", method, path, status, data)
	}
	return data
}

type obj = map[string]any

func constraint(field, op string, inverted, fold bool, values ...string) obj {
	c := obj{"contextName": field, "operator": op, "inverted": inverted, "caseInsensitive": fold}
	switch op {
	case "NUM_EQ", "NUM_GT", "NUM_GTE", "NUM_LT", "NUM_LTE", "DATE_AFTER", "DATE_BEFORE",
		"SEMVER_EQ", "SEMVER_GT", "SEMVER_GTE", "SEMVER_LT", "SEMVER_LTE", "REGEX":
		c["value"] = values[0]
		c["values"] = []string{}
	default:
		c["values"] = values
	}
	return c
}

func rollout(pct, stickiness, group string, cs ...obj) obj {
	if cs == nil {
		cs = []obj{}
	}
	return obj{"name": "flexibleRollout", "parameters": obj{"rollout": pct, "stickiness": stickiness, "groupId": group}, "constraints": cs}
}

// fixtureFlag is one flag of the shared fixture.
type fixtureFlag struct {
	name       string
	strategies []obj
	variants   []obj
	deps       []obj
	enabled    bool
	impression bool
	// random marks flags whose answer the reference draws at random for
	// some contexts.
	random bool
}

// fixtureFlags covers every built-in strategy, every operator, segments, flag
// and strategy variants with payloads, overrides, dependencies and
// impression data.
func fixtureFlags(segmentID int) []fixtureFlag {
	payload := func(typ, value string) obj { return obj{"type": typ, "value": value} }
	return []fixtureFlag{
		{name: "f.default", strategies: []obj{{"name": "default"}}, enabled: true, impression: true},
		{name: "f.off", strategies: []obj{{"name": "default"}}, enabled: false},
		{name: "f.userids", strategies: []obj{{"name": "userWithId", "parameters": obj{"userIds": "u1, u7,u42"}}}, enabled: true},
		{name: "f.gradual.user", strategies: []obj{{"name": "gradualRolloutUserId", "parameters": obj{"percentage": "50", "groupId": "g1"}}}, enabled: true},
		{name: "f.gradual.session", strategies: []obj{{"name": "gradualRolloutSessionId", "parameters": obj{"percentage": "30", "groupId": "g2"}}}, enabled: true},
		{name: "f.gradual.random", strategies: []obj{{"name": "gradualRolloutRandom", "parameters": obj{"percentage": "50"}}}, enabled: true, random: true},
		{name: "f.flexible", strategies: []obj{rollout("40", "default", "f.flexible")}, enabled: true},
		{name: "f.flexible.user", strategies: []obj{rollout("60", "userId", "grp")}, enabled: true},
		{name: "f.flexible.custom", strategies: []obj{rollout("50", "tenant", "f.flexible.custom")}, enabled: true},
		{name: "f.remote", strategies: []obj{{"name": "remoteAddress", "parameters": obj{"IPs": "10.1.1.1, 127.0.0.1"}}}, enabled: true},
		{name: "f.hostname", strategies: []obj{{"name": "applicationHostname", "parameters": obj{"hostNames": "no-such-host.example"}}}, enabled: true},
		{name: "op.str", strategies: []obj{rollout("100", "default", "op.str",
			constraint("email", "STR_STARTS_WITH", false, true, "ADMIN", "ops"),
			constraint("email", "STR_ENDS_WITH", false, false, "@example.com"),
			constraint("email", "STR_CONTAINS", true, false, "blocked"))}, enabled: true},
		{name: "op.num", strategies: []obj{rollout("100", "default", "op.num",
			constraint("age", "NUM_GTE", false, false, "18"), constraint("age", "NUM_LT", false, false, "65"),
			constraint("age", "NUM_EQ", true, false, "30"))}, enabled: true},
		{name: "op.num.more", strategies: []obj{rollout("100", "default", "op.num.more",
			constraint("age", "NUM_GT", false, false, "20"), constraint("age", "NUM_LTE", false, false, "40.5"))}, enabled: true},
		{name: "op.date", strategies: []obj{rollout("100", "default", "op.date",
			constraint("currentTime", "DATE_AFTER", false, false, "2020-01-01T00:00:00.000Z"),
			constraint("currentTime", "DATE_BEFORE", false, false, "2099-01-01T00:00:00.000Z"))}, enabled: true},
		{name: "op.semver", strategies: []obj{rollout("100", "default", "op.semver",
			constraint("appVersion", "SEMVER_GTE", false, false, "2.0.0"), constraint("appVersion", "SEMVER_LT", false, false, "3.0.0-rc.1"))}, enabled: true},
		{name: "op.semver.more", strategies: []obj{
			rollout("100", "default", "a", constraint("appVersion", "SEMVER_EQ", false, false, "2.1.0")),
			rollout("100", "default", "b", constraint("appVersion", "SEMVER_GT", false, false, "3.0.0")),
			rollout("100", "default", "c", constraint("appVersion", "SEMVER_LTE", false, false, "1.0.0")),
		}, enabled: true},
		{name: "op.in", strategies: []obj{rollout("100", "default", "op.in",
			constraint("country", "IN", false, false, "no", "se"), constraint("plan", "NOT_IN", false, false, "free"))}, enabled: true},
		{name: "op.regex", strategies: []obj{rollout("100", "default", "op.regex",
			constraint("userId", "REGEX", false, false, "^u[0-9]*7$"))}, enabled: true},
		{name: "op.cidr", strategies: []obj{rollout("100", "default", "op.cidr",
			constraint("clientIp", "IN_CIDR", false, false, "192.168.0.0/16", "10.0.0.1"))}, enabled: true},
		{name: "seg.flag", strategies: []obj{func() obj { s := rollout("100", "default", "seg.flag"); s["segments"] = []int{segmentID}; return s }()}, enabled: true},
		{name: "v.flag", strategies: []obj{{"name": "default"}}, enabled: true, impression: true, variants: []obj{
			{"name": "red", "weight": 0, "weightType": "variable", "stickiness": "default", "payload": payload("string", "red")},
			{"name": "green", "weight": 0, "weightType": "variable", "stickiness": "default", "payload": payload("json", `{"shade":"dark","n":2}`)},
			{"name": "blue", "weight": 200, "weightType": "fix", "stickiness": "default", "payload": payload("number", "7"),
				"overrides": []obj{{"contextName": "userId", "values": []string{"u1"}}}},
		}},
		{name: "v.custom", strategies: []obj{{"name": "default"}}, enabled: true, random: true, variants: []obj{
			{"name": "a", "weight": 500, "weightType": "variable", "stickiness": "tenant"},
			{"name": "b", "weight": 500, "weightType": "variable", "stickiness": "tenant"},
		}},
		{name: "sv.flag", strategies: []obj{func() obj {
			s := rollout("100", "default", "sv.group")
			s["variants"] = []obj{
				{"name": "A", "weight": 500, "weightType": "variable", "stickiness": "default", "payload": payload("string", "a")},
				{"name": "B", "weight": 500, "weightType": "variable", "stickiness": "default", "payload": payload("csv", "x,y")},
			}
			return s
		}()}, enabled: true},
		{name: "dep.parent", strategies: []obj{rollout("70", "default", "dep.parent")}, enabled: true, variants: []obj{
			{"name": "x", "weight": 500, "weightType": "variable", "stickiness": "default"},
			{"name": "y", "weight": 500, "weightType": "variable", "stickiness": "default"},
		}},
		{name: "dep.child", strategies: []obj{{"name": "default"}}, enabled: true, deps: []obj{{"feature": "dep.parent"}}},
		{name: "dep.child.variant", strategies: []obj{{"name": "default"}}, enabled: true, deps: []obj{{"feature": "dep.parent", "variants": []string{"x"}}}},
		{name: "dep.child.off", strategies: []obj{{"name": "default"}}, enabled: true, deps: []obj{{"feature": "f.hostname", "enabled": false}}},
	}
}

// createFixture creates the fixture through the admin API, as a user would,
// and returns the flag names.
func createFixture(t *testing.T, server string) []fixtureFlag {
	t.Helper()
	var seg struct {
		ID int `json:"id"`
	}
	data := admin(t, server, "POST", "/api/admin/segments", obj{"name": "beta-testers", "constraints": []obj{
		constraint("userId", "IN", false, false, "u1", "u2", "u3", "u7", "u42"),
	}})
	if err := json.Unmarshal(data, &seg); err != nil || seg.ID == 0 {
		t.Fatalf("segment answer %s", data)
	}
	flags := fixtureFlags(seg.ID)
	const p = "/api/admin/projects/default/features"
	for _, f := range flags {
		admin(t, server, "POST", p, obj{"name": f.name, "type": "release", "impressionData": f.impression})
		for _, s := range f.strategies {
			admin(t, server, "POST", p+"/"+f.name+"/environments/development/strategies", s)
		}
		if f.variants != nil {
			admin(t, server, "PUT", p+"/"+f.name+"/environments/development/variants", f.variants)
		}
		if f.enabled {
			admin(t, server, "POST", p+"/"+f.name+"/environments/development/on", nil)
		}
	}
	for _, f := range flags {
		for _, d := range f.deps {
			admin(t, server, "POST", p+"/"+f.name+"/dependencies", d)
		}
	}
	return flags
}

func names(flags []fixtureFlag) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		out[i] = f.name
	}
	return append(out, "no.such.flag")
}
