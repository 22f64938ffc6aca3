package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startEdge runs "signalbox edge" against upstream (a server's or another
// node's base URL) and waits until it answers its health check.
func startEdge(t *testing.T, upstream string, extra map[string]string) (string, *process) {
	t.Helper()
	port := freePort(t)
	env := map[string]string{
		"PORT": itoa(port), "INTERFACE": "127.0.0.1", "UPSTREAM_URL": upstream,
		"FEATURES_REFRESH_INTERVAL_SECONDS": "1", "METRICS_INTERVAL_SECONDS": "1",
		"BACKUP_FOLDER": t.TempDir(), "LOG_LEVEL": "warn",
	}
	for k, v := range extra {
		env[k] = v
	}
	p := start(t, envList(env), binary, "edge")
	waitFor(t, base(port)+"/internal-backstage/health", http.StatusOK, p)
	return base(port), p
}

// makeToken creates an API token through the admin API and returns its
// secret.
func makeToken(t *testing.T, server, kind string, projects []string, env string) string {
	t.Helper()
	var tok struct {
		Secret string `json:"secret"`
	}
	body := admin(t, server, "POST", "/api/admin/api-tokens", obj{"tokenName": kind + "-" + env + "-" + strings.Join(projects, "-"),
		"type": kind, "projects": projects, "environment": env})
	if err := json.Unmarshal(body, &tok); err != nil || tok.Secret == "" {
		t.Fatalf("token: %s", body)
	}
	return tok.Secret
}

// frontendAnswer is GET <base>/api/frontend for ctx with token: the
// toggles by name, and the status.
func frontendAnswer(t *testing.T, baseURL, token string, ctx wireContext) (map[string]toggle, int) {
	t.Helper()
	q := url.Values{}
	if ctx.UserID != "" {
		q.Set("userId", ctx.UserID)
	}
	q.Set("sessionId", ctx.SessionID)
	for k, v := range ctx.Properties {
		q.Set("properties["+k+"]", v)
	}
	status, body := call(t, "GET", baseURL+"/api/frontend?"+q.Encode(), token, nil)
	if status != http.StatusOK {
		return nil, status
	}
	var out struct {
		Toggles []toggle `json:"toggles"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return byName(out.Toggles, nil), status
}

// TestEdge runs one node in front of a server, serving the browser SDK with
// frontend tokens of two environments and the Node SDK with client tokens of
// two projects, then a second node chained behind it.
func TestEdge(t *testing.T) {
	dir := requireNode(t)
	server, serverProc := startServerIn(t, t.TempDir(), "", freePort(t))
	flags := createFixture(t, server)
	admin(t, server, "POST", "/api/admin/projects", obj{"id": "web", "name": "Web"})
	admin(t, server, "POST", "/api/admin/projects/web/features", obj{"name": "web.flag"})
	for _, env := range []string{"development", "production"} {
		admin(t, server, "POST", "/api/admin/projects/web/features/web.flag/environments/"+env+"/strategies", obj{"name": "default"})
		admin(t, server, "POST", "/api/admin/projects/web/features/web.flag/environments/"+env+"/on", nil)
	}
	random := map[string]bool{}
	for _, f := range flags {
		random[f.name] = f.random
	}
	feDev := makeToken(t, server, "frontend", []string{"*"}, "development")
	feProd := makeToken(t, server, "frontend", []string{"*"}, "production")
	clWeb := makeToken(t, server, "client", []string{"web"}, "development")
	// Frontend tokens are served from the configuration of a client token
	// that covers them, as in Unleash Edge: one per environment here.
	clDev := makeToken(t, server, "client", []string{"*"}, "development")
	clProd := makeToken(t, server, "client", []string{"*"}, "production")
	backups := t.TempDir()
	edge, edgeProc := startEdge(t, server, map[string]string{"TOKENS": clDev + "," + clProd, "BACKUP_FOLDER": backups})

	t.Run("frontend answers equal the server's for two environments", func(t *testing.T) {
		compared := 0
		for i, tok := range []string{feDev, feProd} {
			for _, c := range contexts(500, uint64(10+i)) {
				want, st := frontendAnswer(t, server, tok, c)
				if st != http.StatusOK {
					t.Fatalf("server: %d", st)
				}
				got, st := frontendAnswer(t, edge, tok, c)
				if st != http.StatusOK {
					t.Fatalf("edge: %d", st)
				}
				for name := range random {
					if random[name] {
						delete(want, name)
						delete(got, name)
					}
				}
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("context %+v: edge %v, server %v", c, got, want)
				}
				compared++
			}
		}
		if compared < 1000 {
			t.Errorf("%d contexts compared", compared)
		}
	})

	t.Run("the browser SDK through the node", func(t *testing.T) {
		out := runNode(t, dir, "browser-sdk.cjs", "URL="+edge+"/api/frontend", "KEY="+feProd, "USER_ID=u1",
			"FLAGS=f.default,f.userids,web.flag,f.off,no.such.flag")
		var got struct {
			After map[string]struct {
				Enabled bool `json:"enabled"`
			} `json:"after"`
			MetricsPosted int `json:"metricsPosted"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		want, _ := frontendAnswer(t, server, feProd, wireContext{UserID: "u1", SessionID: "s1"})
		for _, f := range []string{"f.default", "f.userids", "web.flag", "f.off", "no.such.flag"} {
			if got.After[f].Enabled != want[f].Enabled {
				t.Errorf("%s: the SDK says %v, the server %v", f, got.After[f].Enabled, want[f].Enabled)
			}
		}
		if got.MetricsPosted == 0 {
			t.Error("the SDK posted no metrics")
		}
	})

	t.Run("the Node SDK with client tokens of two projects", func(t *testing.T) {
		cases := map[string]any{"flags": append(names(flags), "web.flag"), "contexts": contexts(100, 5)}
		casesFile := filepath.Join(t.TempDir(), "cases.json")
		data, _ := json.Marshal(cases)
		if err := os.WriteFile(casesFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		type result struct {
			Flag    string          `json:"flag"`
			Context wireContext     `json:"context"`
			Enabled bool            `json:"enabled"`
			Variant json.RawMessage `json:"variant"`
		}
		run := func(baseURL, token, app string) []result {
			var got struct {
				Results []result `json:"results"`
			}
			out := runNode(t, dir, "server-sdk.cjs", "URL="+baseURL+"/api", "TOKEN="+token, "CASES="+casesFile, "APP_NAME="+app)
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("SDK output %s: %v", out, err)
			}
			return got.Results
		}
		for i, tok := range []string{clientToken, clWeb} {
			fromEdge, fromServer := run(edge, tok, "sdk-edge-"+itoa(i)), run(server, tok, "sdk-direct-"+itoa(i))
			if len(fromEdge) != len(fromServer) || len(fromEdge) == 0 {
				t.Fatalf("%d results from the node, %d from the server", len(fromEdge), len(fromServer))
			}
			on := 0
			for i := range fromEdge {
				if random[fromEdge[i].Flag] {
					continue
				}
				if !reflect.DeepEqual(fromEdge[i], fromServer[i]) {
					t.Fatalf("token %s: node %+v, server %+v", strings.SplitN(tok, ".", 2)[0], fromEdge[i], fromServer[i])
				}
				if fromEdge[i].Enabled {
					on++
				}
			}
			if on == 0 {
				t.Errorf("token %s: no flag was on for any context", strings.SplitN(tok, ".", 2)[0])
			}
		}
		// The node uploads the SDK's evaluations under the SDK's own
		// application: as many as the same SDK run reported directly.
		for i := range 2 {
			sameUsage(t, server, "sdk-edge-"+itoa(i), "sdk-direct-"+itoa(i))
		}
	})

	t.Run("each token only where its kind belongs", func(t *testing.T) {
		for _, tt := range []struct {
			path, token string
			want        int
		}{
			{"/api/frontend", clientToken, http.StatusForbidden},
			{"/api/client/features", feDev, http.StatusForbidden},
			{"/api/client/features", clientToken, http.StatusOK},
			{"/api/proxy", feDev, http.StatusOK},
			{"/api/frontend", "*:development.made-up-secret", http.StatusUnauthorized},
			{"/api/frontend", "", http.StatusUnauthorized},
		} {
			if st, body := call(t, "GET", edge+tt.path, tt.token, nil); st != tt.want {
				t.Errorf("GET %s with %.12q: %d, want %d (%s)", tt.path, tt.token, st, tt.want, body)
			}
		}
	})

	t.Run("a deleted token stops being served within a refresh", func(t *testing.T) {
		tok := makeToken(t, server, "frontend", []string{"*"}, "development")
		if _, st := frontendAnswer(t, edge, tok, wireContext{SessionID: "s"}); st != http.StatusOK {
			t.Fatalf("new token: %d", st)
		}
		admin(t, server, "DELETE", "/api/admin/api-tokens/"+tok, nil)
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, st := frontendAnswer(t, edge, tok, wireContext{SessionID: "s"})
			if st == http.StatusUnauthorized {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the deleted token still answers %d after 10 s", st)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("a flood of made-up tokens is bounded", func(t *testing.T) {
		start := time.Now()
		for i := range 300 {
			st, _ := call(t, "GET", edge+"/api/frontend", fmt.Sprintf("*:development.flood-%d", i), nil)
			if st != http.StatusUnauthorized && st != http.StatusTooManyRequests {
				t.Fatalf("made-up token %d: %d", i, st)
			}
		}
		asked := edgeCounter(t, edge, `signalbox_edge_token_validations_total{result="unknown"}`)
		limited := edgeCounter(t, edge, `signalbox_edge_token_validations_total{result="rate_limited"}`)
		// At most the burst plus the rate over the time taken reached the
		// upstream; the rest were refused here.
		if bound := 50 + 10*time.Since(start).Seconds() + 5; asked > bound || limited == 0 {
			t.Errorf("%v made-up tokens asked upstream (bound %v), %v refused by the rate limit", asked, bound, limited)
		}
		if _, st := frontendAnswer(t, edge, feDev, wireContext{SessionID: "s"}); st != http.StatusOK {
			t.Errorf("a valid token after the flood: %d", st)
		}
	})

	t.Run("a chain of two nodes", func(t *testing.T) {
		second, _ := startEdge(t, edge, map[string]string{"TOKENS": clDev})
		ctx := wireContext{UserID: "u1", SessionID: "s1"}
		got, st := frontendAnswer(t, second, feDev, ctx)
		if st != http.StatusOK || !got["f.default"].Enabled {
			t.Fatalf("through two nodes: %d %v", st, got)
		}
		admin(t, server, "POST", "/api/admin/projects/default/features/f.default/environments/development/off", nil)
		deadline := time.Now().Add(15 * time.Second)
		for {
			got, _ = frontendAnswer(t, second, feDev, ctx)
			if _, on := got["f.default"]; !on {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the change did not reach the end of the chain in 15 s")
			}
			time.Sleep(100 * time.Millisecond)
		}

		before := serverUsage(t, server, "web.flag")
		ownBefore := appUsage(t, server, "signalbox-edge", "web.flag")
		now := time.Now().UTC()
		st, body := call(t, "POST", second+"/api/client/metrics", clWeb, obj{"appName": "chain-app", "instanceId": "chain-1",
			"bucket": obj{"start": now.Add(-time.Minute).Format(time.RFC3339), "stop": now.Format(time.RFC3339),
				"toggles": obj{"web.flag": obj{"yes": 7, "no": 2}}}})
		if st/100 != 2 {
			t.Fatalf("metrics: %d %s", st, body)
		}
		deadline = time.Now().Add(15 * time.Second)
		for serverUsage(t, server, "web.flag")-before < 9 && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(2500 * time.Millisecond) // two more upload intervals: nothing may arrive twice
		if got := serverUsage(t, server, "web.flag") - before; got != 9 {
			t.Errorf("the server counted %v evaluations of web.flag through the chain, want 9", got)
		}
		// Under the application that reported them, not the nodes'.
		if got := appUsage(t, server, "chain-app", "web.flag"); got != 9 {
			t.Errorf("the server counted %v evaluations of web.flag for chain-app, want 9", got)
		}
		if got := appUsage(t, server, "signalbox-edge", "web.flag") - ownBefore; got != 0 {
			t.Errorf("%v of chain-app's evaluations were counted under the nodes' name", got)
		}

		// The Node SDK behind two nodes: its counts, under its name, equal
		// those of the same run sent to the server directly, and its
		// registration reaches the server as the nodes' own do.
		cases := map[string]any{"flags": append(names(flags), "web.flag"), "contexts": contexts(50, 7)}
		casesFile := filepath.Join(t.TempDir(), "cases.json")
		data, _ := json.Marshal(cases)
		if err := os.WriteFile(casesFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
		runNode(t, dir, "server-sdk.cjs", "URL="+second+"/api", "TOKEN="+clWeb, "CASES="+casesFile, "APP_NAME=sdk-chain")
		runNode(t, dir, "server-sdk.cjs", "URL="+server+"/api", "TOKEN="+clWeb, "CASES="+casesFile, "APP_NAME=sdk-chain-direct")
		sameUsage(t, server, "sdk-chain", "sdk-chain-direct")
		apps := string(admin(t, server, "GET", "/api/admin/metrics/applications", nil))
		for _, want := range []string{`"appName":"signalbox-edge"`, `"appName":"sdk-chain","sdkVersion":"unleash-node-sdk:`} {
			if !strings.Contains(apps, want) {
				t.Errorf("the server's applications lack %s: %s", want, apps)
			}
		}
		// The stored hourly usage names the application too.
		deadline = time.Now().Add(20 * time.Second)
		for {
			raw := string(admin(t, server, "GET", "/api/admin/client-metrics/features/web.flag/raw", nil))
			if strings.Contains(raw, `"appName":"chain-app"`) && strings.Contains(raw, `"appName":"sdk-chain"`) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the stored usage of web.flag lacks chain-app or sdk-chain: %s", raw)
			}
			time.Sleep(500 * time.Millisecond)
		}
	})

	t.Run("the Node SDK streaming and delta polling through the node", func(t *testing.T) {
		admin(t, server, "POST", "/api/admin/projects/web/features", obj{"name": "web.pushed"})
		admin(t, server, "POST", "/api/admin/projects/web/features/web.pushed/environments/development/strategies", obj{"name": "default"})
		for _, mode := range []string{"streaming", "delta"} {
			sdk := startStreamingSDK(t, edge, clWeb, mode)
			if mode == "streaming" {
				if m := sdk.awaitSSE("unleash-connected"); sseTypes(m) != `["hydration"]` {
					t.Fatalf("first message %v", m)
				}
			}
			sdk.check("web.pushed", obj{}, false, "")
			admin(t, server, "POST", "/api/admin/projects/web/features/web.pushed/environments/development/on", nil)
			if mode == "streaming" {
				if m := sdk.awaitSSE("unleash-updated"); sseTypes(m) != `["feature-updated"]` {
					t.Fatalf("update message %v", m)
				}
			}
			sdk.check("web.pushed", obj{}, true, "")
			admin(t, server, "POST", "/api/admin/projects/web/features/web.pushed/environments/development/off", nil)
			sdk.check("web.pushed", obj{}, false, "")
		}
	})

	t.Run("with only UPSTREAM_URL it serves any valid token", func(t *testing.T) {
		bare, _ := startEdge(t, server, nil)
		ctx := wireContext{UserID: "u3", SessionID: "s3"}
		want, _ := frontendAnswer(t, server, feProd, ctx)
		got, st := frontendAnswer(t, bare, feProd, ctx)
		for name := range random {
			delete(want, name)
			delete(got, name)
		}
		if st != http.StatusOK || !reflect.DeepEqual(want, got) {
			t.Errorf("frontend token: %d %v, want %v", st, got, want)
		}
		if st, body := call(t, "GET", bare+"/api/client/features", clWeb, nil); st != http.StatusOK || !strings.Contains(string(body), `"web.flag"`) {
			t.Errorf("client token: %d %s", st, body)
		}
	})

	// Last: it stops the server.
	t.Run("with the server down it keeps serving, and restarted it serves from its backups", func(t *testing.T) {
		ctx := wireContext{UserID: "u7", SessionID: "s7"}
		want, st := frontendAnswer(t, edge, feProd, ctx)
		if st != http.StatusOK {
			t.Fatalf("before: %d", st)
		}
		serverProc.kill()
		// While the server is down, through failing refreshes and
		// re-validations, every request is answered as before.
		end := time.Now().Add(2500 * time.Millisecond)
		for n := 0; time.Now().Before(end) || n < 100; n++ {
			tok := []string{feDev, feProd}[n%2]
			if _, st := frontendAnswer(t, edge, tok, wireContext{UserID: "u" + itoa(n), SessionID: "s"}); st != http.StatusOK {
				t.Fatalf("request %d with the server down: %d", n, st)
			}
			if st, _ := call(t, "GET", edge+"/api/client/features", clWeb, nil); st != http.StatusOK {
				t.Fatalf("client request %d with the server down: %d", n, st)
			}
		}
		edgeProc.stopNow(t)
		restarted, _ := startEdge(t, server, map[string]string{"BACKUP_FOLDER": backups})
		got, st := frontendAnswer(t, restarted, feProd, ctx)
		for name := range random {
			delete(want, name)
			delete(got, name)
		}
		if st != http.StatusOK || !reflect.DeepEqual(want, got) {
			t.Errorf("after the restart: %d %v, want %v", st, got, want)
		}
	})
}

// edgeCounter reads one series of the node's Prometheus metrics (0 when
// absent).
func edgeCounter(t *testing.T, edge, series string) float64 {
	t.Helper()
	return promSum(t, edge+"/internal-backstage/metrics", func(line string) bool { return strings.HasPrefix(line, series+" ") })
}

// serverUsage sums the server's usage counters of flag.
func serverUsage(t *testing.T, server, flag string) float64 {
	t.Helper()
	return promSum(t, server+"/internal-backstage/prometheus", func(line string) bool {
		return strings.HasPrefix(line, "feature_toggle_usage_total{") && strings.Contains(line, `toggle="`+flag+`"`)
	})
}

// appUsage is the server's count of flag's evaluations reported by
// application app (all flags when flag is "").
func appUsage(t *testing.T, server, app, flag string) float64 {
	t.Helper()
	return promSum(t, server+"/internal-backstage/prometheus", func(line string) bool {
		return strings.HasPrefix(line, "feature_toggle_usage_total{") && strings.Contains(line, `appName="`+app+`"`) &&
			(flag == "" || strings.Contains(line, `toggle="`+flag+`"`))
	})
}

// sameUsage waits until the server counted as many evaluations for app as
// for want (which the same SDK run reported directly), and then that
// nothing more arrives for app.
func sameUsage(t *testing.T, server, app, want string) {
	t.Helper()
	n := appUsage(t, server, want, "")
	if n == 0 {
		t.Fatalf("the server counted nothing for %s", want)
	}
	deadline := time.Now().Add(15 * time.Second)
	for appUsage(t, server, app, "") < n && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(2500 * time.Millisecond) // two more upload intervals: nothing may arrive twice
	if got := appUsage(t, server, app, ""); got != n {
		t.Errorf("the server counted %v evaluations for %s, want %v as for %s", got, app, n, want)
	}
}

func promSum(t *testing.T, u string, match func(string) bool) float64 {
	t.Helper()
	st, body := call(t, "GET", u, "", nil)
	if st != http.StatusOK {
		t.Fatalf("GET %s: %d", u, st)
	}
	sum := 0.0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !match(line) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}
