package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

func TestEdgeConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  EdgeConfig
		want string // part of the error; "" for none
	}{
		{"upstream", EdgeConfig{UpstreamURL: "http://127.0.0.1:4242"}, ""},
		{"no upstream", EdgeConfig{}, "UPSTREAM_URL"},
		{"not a URL", EdgeConfig{UpstreamURL: "ftp://x"}, "UPSTREAM_URL"},
		{"offline without a file", EdgeConfig{Offline: true, ClientTokens: []string{"*:development.a"}}, "BOOTSTRAP_FILE"},
		{"offline without tokens", EdgeConfig{Offline: true, BootstrapFile: "f.json"}, "CLIENT_TOKENS"},
		{"malformed token", EdgeConfig{UpstreamURL: "http://x", Tokens: []string{"no-scope"}}, "project:environment.secret"},
		{"negative interval", EdgeConfig{UpstreamURL: "http://x", RefreshInterval: -time.Second}, "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
	if got := (EdgeConfig{UpstreamURL: "http://host:4242/api/"}).withDefaults().UpstreamURL; got != "http://host:4242" {
		t.Errorf("the /api suffix stays: %q", got)
	}
}

func TestCovers(t *testing.T) {
	tests := []struct {
		outer, inner []string
		want         bool
	}{
		{[]string{"*"}, []string{"a"}, true},
		{[]string{"*"}, []string{"*"}, true},
		{[]string{"a", "b"}, []string{"b"}, true},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"a"}, []string{"*"}, false},
	}
	for _, tt := range tests {
		if got := covers(tt.outer, tt.inner); got != tt.want {
			t.Errorf("covers(%v, %v) = %v", tt.outer, tt.inner, got)
		}
	}
}

func TestNegativeCacheIsBounded(t *testing.T) {
	c := newNegativeCache(100, time.Minute)
	now := time.Now()
	for i := range 1000 {
		c.add(fmt.Sprint("t", i), now)
		if c.len() > 100 {
			t.Fatalf("%d entries after %d adds", c.len(), i+1)
		}
	}
	c.add("x", now)
	if !c.has("x", now) || c.has("x", now.Add(2*time.Minute)) {
		t.Error("an entry is not remembered for its time only")
	}
}

// An offline node serves a bootstrap file to the configured tokens, each
// seeing its project's flags, and follows the file when it changes.
func TestEdgeOffline(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bootstrap.json")
	write := func(webOn bool) {
		t.Helper()
		f := clientapi.Features{Version: 2, Features: []clientapi.Feature{
			{Name: "shop.flag", Project: "shop", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}},
			{Name: "web.flag", Project: "web", Enabled: webOn, Strategies: []clientapi.Strategy{{Name: "default"}}},
		}}
		b, _ := json.Marshal(f)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(true)
	const (
		webFrontend = "web:production.frontend-secret"
		allClient   = "*:production.client-secret"
	)
	e, srv := runTestEdge(t, EdgeConfig{Offline: true, BootstrapFile: file, ReloadInterval: 20 * time.Millisecond,
		FrontendTokens: []string{webFrontend}, ClientTokens: []string{allClient}, PretrustedTokens: []string{"legacy-key@production"}})

	get := func(path, token string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, string(b)
	}
	tests := []struct {
		path, token string
		status      int
		has, hasNot string
	}{
		{"/api/frontend", webFrontend, 200, `"web.flag"`, `"shop.flag"`},
		{"/api/proxy", webFrontend, 200, `"web.flag"`, `"shop.flag"`},
		{"/api/client/features", allClient, 200, `"shop.flag"`, ""},
		{"/api/client/features", webFrontend, 403, "", ""},
		{"/api/frontend", allClient, 403, "", ""},
		{"/api/frontend", "web:production.other", 401, "", ""},
		{"/api/frontend/features/web.flag", webFrontend, 200, `"name":"web.flag"`, ""},
		{"/api/frontend", "legacy-key", 200, `"shop.flag"`, ""},
		{"/api/client/features", "legacy-key", 403, "", ""},
		{"/api/frontend/features/shop.flag", webFrontend, 404, "", ""},
		{"/api/client/features/shop.flag", allClient, 200, `"name":"shop.flag"`, `"web.flag"`},
		{"/api/client/features/nope", allClient, 404, "", ""},
		{"/api/client/features/Shop.Flag", allClient, 404, "", ""},
		{"/internal-backstage/health", "", 200, `"OK"`, ""},
		{"/internal-backstage/tokens", "", 200, `"web:production.fronte…"`, "frontend-secret"},
	}
	for _, tt := range tests {
		st, body := get(tt.path, tt.token)
		if st != tt.status || (tt.has != "" && !strings.Contains(body, tt.has)) || (tt.hasNot != "" && strings.Contains(body, tt.hasNot)) {
			t.Errorf("GET %s with %q: %d %s", tt.path, tt.token, st, body)
		}
	}

	// A downstream node's bulk report joins the scope's usage.
	req, _ := http.NewRequest("POST", srv.URL+"/api/client/metrics/bulk", strings.NewReader(
		`{"applications":[{"appName":"down","instanceId":"d1","environment":"production","interval":1000,"started":"2026-01-01T00:00:00Z","strategies":[]}],`+
			`"metrics":[{"featureName":"shop.flag","appName":"down","environment":"production","yes":4,"no":1},{"featureName":"made-up","appName":"down","environment":"production","yes":9}]}`))
	req.Header.Set("Authorization", allClient)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("bulk metrics: %d", res.StatusCode)
	}
	e.mu.Lock()
	sc := e.scopes[edgeToken{Environment: "production", Projects: []string{"*"}}.scopeKey()]
	e.mu.Unlock()
	// It keeps its application and environment, and is not counted under
	// the node's own name as well.
	regs, rows := sc.p.apps.take()
	var yes, no int64
	for _, m := range rows {
		if m.FeatureName == "shop.flag" && m.AppName == "down" && m.Environment == "production" {
			yes, no = yes+m.Yes, no+m.No
		}
		if m.AppName != "down" {
			t.Errorf("a row under another application: %+v", m)
		}
	}
	if yes != 4 || no != 1 || len(rows) != 2 {
		t.Errorf("usage after a bulk report: yes %d, no %d, rows %+v", yes, no, rows)
	}
	if len(regs) != 1 || regs[0].AppName != "down" || regs[0].InstanceID != "d1" {
		t.Errorf("registrations after a bulk report: %+v", regs)
	}
	if own := sc.p.usage.take(); len(own) != 0 {
		t.Errorf("the bulk report was counted under the node's name too: %+v", own)
	}

	// A new file is served once read; a broken one changes nothing.
	write(false)
	waitFor(t, "the reloaded file", func() bool {
		_, body := get("/api/frontend", webFrontend)
		return !strings.Contains(body, `"web.flag"`)
	})
	if err := os.WriteFile(file, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if st, body := get("/api/client/features", allClient); st != 200 || !strings.Contains(body, `"shop.flag"`) {
		t.Errorf("after a broken file: %d %s", st, body)
	}
}

// An offline node gives a client token of one project the segments its
// flags use and no other; a token of every project gets them all.
func TestEdgeOfflineSegmentsOfScope(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bootstrap.json")
	segment := func(id int) clientapi.Segment {
		return clientapi.Segment{ID: id, Name: fmt.Sprint("segment-", id), Constraints: []clientapi.Constraint{
			{ContextName: "userId", Operator: "IN", Values: []string{fmt.Sprint("user-", id)}}}}
	}
	f := clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "shop.flag", Project: "shop", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Segments: []int{1}}}},
		{Name: "web.flag", Project: "web", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default", Segments: []int{2}}}},
	}, Segments: []clientapi.Segment{segment(1), segment(2), segment(3)}}
	b, _ := json.Marshal(f)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	const (
		shopClient = "shop:production.client-secret"
		allClient  = "*:production.client-secret"
	)
	_, srv := runTestEdge(t, EdgeConfig{Offline: true, BootstrapFile: file, ReloadInterval: time.Hour,
		ClientTokens: []string{shopClient, allClient}})
	for _, tc := range []struct {
		token string
		want  []int
	}{{shopClient, []int{1}}, {allClient, []int{1, 2, 3}}} {
		req, _ := http.NewRequest("GET", srv.URL+"/api/client/features", nil)
		req.Header.Set("Authorization", tc.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var got clientapi.Features
		err = json.NewDecoder(res.Body).Decode(&got)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", tc.token, res.StatusCode, err)
		}
		ids := []int{}
		for _, sg := range got.Segments {
			ids = append(ids, sg.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
			t.Errorf("%s: segments %v, want %v", tc.token, ids, tc.want)
		}
	}
}

// The OpenAPI document names every path the node serves, and nothing else.
func TestEdgeOpenAPICoversRoutes(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(edgeOpenAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"/edge/validate": true, "/api/client/streaming": true, "/api/client/delta": true, "/api/client/metrics/bulk": true}
	for p := range edgeRoutes {
		want[p] = true
	}
	for _, one := range singleFlagPaths {
		want[one.prefix+"{name}"] = true
	}
	for _, p := range []string{"health", "ready", "tokens", "features", "metrics"} {
		want["/internal-backstage/"+p] = true
	}
	for p := range want {
		if _, ok := doc.Paths[p]; !ok {
			t.Errorf("%s is served but not documented", p)
		}
	}
	for p := range doc.Paths {
		if !want[p] {
			t.Errorf("%s is documented but not served", p)
		}
	}

	e, err := NewEdge(EdgeConfig{UpstreamURL: "http://127.0.0.1:9", EnableOAS: true, BasePath: "/edge", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for path, status := range map[string]int{"/edge/docs/openapi.json": 200, "/edge/docs/openapi/": 200, "/edge/docs/openapi": 301} {
		rec := httptest.NewRecorder()
		e.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != status {
			t.Errorf("GET %s: %d, want %d", path, rec.Code, status)
		}
	}
}

// runTestEdge starts an Edge node with cfg (logging nowhere unless cfg
// says otherwise) and serves it on loopback, both until t ends.
func runTestEdge(t *testing.T, cfg EdgeConfig) (*Edge, *httptest.Server) {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e, err := NewEdge(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	srv := httptest.NewServer(e.Handler())
	t.Cleanup(srv.Close)
	return e, srv
}
