package proxy

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

const (
	testClientKey = "client-key-1"
	testToken     = "*:development.upstream-secret"
	testAppName   = "test-proxy"
)

// testPayload is a small configuration with the shapes the proxy must
// handle. Names starting with "leak" must never appear in an answer to a
// client key: they are strategy parameters, constraint fields and values,
// segment names, or flags that are off for an anonymous caller.
const testPayload = `{
  "version": 2,
  "features": [
    {"name": "on-default", "type": "release", "project": "default", "enabled": true, "stale": false, "impressionData": true,
     "strategies": [{"name": "default", "constraints": [], "parameters": {}}], "variants": []},
    {"name": "leak-off-flag", "project": "default", "enabled": false, "strategies": [{"name": "default", "constraints": [], "parameters": {}}], "variants": []},
    {"name": "leak-alice-only", "project": "default", "enabled": true,
     "strategies": [{"name": "userWithId", "constraints": [], "parameters": {"userIds": "alice,leakUserIdValue"}}], "variants": []},
    {"name": "with-variants", "project": "default", "enabled": true,
     "strategies": [{"name": "flexibleRollout", "constraints": [], "parameters": {"rollout": "100", "stickiness": "default", "groupId": "leakGroupIdValue"}}],
     "variants": [
       {"name": "blue", "weight": 500, "weightType": "variable", "stickiness": "default", "payload": {"type": "json", "value": "{\"color\":\"<blue> & \\\"co\\\"\"}"}},
       {"name": "disabled", "weight": 500, "weightType": "variable", "stickiness": "default", "payload": {"type": "string", "value": "named disabled"}}
     ]},
    {"name": "leak-gold-tier", "project": "default", "enabled": true,
     "strategies": [{"name": "default", "constraints": [{"contextName": "leakTierField", "operator": "IN", "values": ["leakGoldValue"], "caseInsensitive": false, "inverted": false}], "parameters": {}}], "variants": []},
    {"name": "leak-production-only", "project": "default", "enabled": true,
     "strategies": [{"name": "default", "constraints": [{"contextName": "environment", "operator": "IN", "values": ["production"]}], "parameters": {}}], "variants": []},
    {"name": "leak-office-ip", "project": "default", "enabled": true,
     "strategies": [{"name": "remoteAddress", "constraints": [], "parameters": {"IPs": "203.0.113.7"}}], "variants": []},
    {"name": "leak-segment-eu", "project": "default", "enabled": true,
     "strategies": [{"name": "default", "constraints": [], "parameters": {}, "segments": [7]}], "variants": []},
    {"name": "leak-app-only", "project": "default", "enabled": true,
     "strategies": [{"name": "default", "constraints": [{"contextName": "appName", "operator": "IN", "values": ["leak-other-app"]}], "parameters": {}}], "variants": []},
    {"name": "other-project-flag", "project": "other", "enabled": true, "strategies": [], "variants": []}
  ],
  "segments": [{"id": 7, "name": "leakSegmentName", "constraints": [{"contextName": "leakRegionField", "operator": "IN", "values": ["leakEuValue"]}]}]
}`

// enabledForAnonymous lists the flags on for a caller with no context, in
// payload order.
var enabledForAnonymous = []string{"on-default", "with-variants", "other-project-flag"}

// fakeUpstream is a small Unleash-compatible client API on loopback.
type fakeUpstream struct {
	srv *httptest.Server

	mu        sync.Mutex
	payload   []byte
	etag      string
	status    int           // non-zero: answer features polls with it
	garbage   bool          // answer polls with 200 and a non-payload body
	delay     time.Duration // wait before answering polls
	gzip      bool
	metricsOK bool // when false, metrics posts get 503
	polls     []*http.Request
	registers []recorded
	metrics   []recorded
}

type recorded struct {
	header http.Header
	body   []byte
}

func newFakeUpstream(t testing.TB) *fakeUpstream {
	f := &fakeUpstream{payload: []byte(testPayload), etag: `"rev-1"`, metricsOK: true}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/client/features", f.features)
	mux.HandleFunc("POST /api/client/register", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.registers = append(f.registers, recorded{r.Header.Clone(), b})
		f.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("POST /api/client/metrics", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		ok := f.metricsOK
		if ok {
			f.metrics = append(f.metrics, recorded{r.Header.Clone(), b})
		}
		f.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeUpstream) url() string { return f.srv.URL + "/api" }

func (f *fakeUpstream) features(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.polls = append(f.polls, r.Clone(context.Background()))
	payload, etag, status, garbage, delay, gz := f.payload, f.etag, f.status, f.garbage, f.delay, f.gzip
	f.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case status != 0:
		http.Error(w, "upstream trouble", status)
		return
	case garbage:
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html>proxy error page</html>")
		return
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && inm == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Content-Type", "application/json")
	if gz {
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(payload)
		_ = zw.Close()
		return
	}
	_, _ = w.Write(payload)
}

// set changes the fake's state under its lock.
func (f *fakeUpstream) set(fn func(f *fakeUpstream)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeUpstream) pollCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.polls)
}

func (f *fakeUpstream) firstPoll() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls[0]
}

func (f *fakeUpstream) lastPoll() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.polls) == 0 {
		return nil
	}
	return f.polls[len(f.polls)-1]
}

func (f *fakeUpstream) metricsPosts() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.metrics...)
}

func (f *fakeUpstream) registerPosts() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.registers...)
}

// sumMetrics adds up every metrics post the fake received.
func (f *fakeUpstream) sumMetrics(t testing.TB) map[string]clientapi.ToggleCount {
	t.Helper()
	out := map[string]clientapi.ToggleCount{}
	for _, rec := range f.metricsPosts() {
		var m clientapi.Metrics
		if err := json.Unmarshal(rec.body, &m); err != nil {
			t.Fatalf("metrics body %s: %v", rec.body, err)
		}
		for name, c := range m.Bucket.Toggles {
			tc := out[name]
			tc.Add(c)
			out[name] = tc
		}
	}
	return out
}

// deadURL is an http URL on loopback where nothing listens.
func deadURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return "http://" + addr + "/api"
}

// harness is a proxy served on loopback with its Run loop going.
type harness struct {
	p    *Proxy
	srv  *httptest.Server
	stop func() // cancels Run and waits for it
	logs *syncBuffer
}

// testConfig is a Config for tests: fast intervals, a private backup dir,
// logs captured.
func testConfig(t testing.TB, upstreamURL string) Config {
	return Config{
		ServiceURL:      upstreamURL,
		ServiceAPIToken: testToken,
		ClientKeys:      []string{testClientKey},
		ServiceAppName:  testAppName,
		RefreshInterval: 20 * time.Millisecond,
		MetricsInterval: 50 * time.Millisecond,
		UpstreamTimeout: 2 * time.Second,
		BackupDir:       t.TempDir(),
	}
}

// startProxy builds and runs a proxy; it is stopped when the test ends.
func startProxy(t testing.TB, cfg Config) *harness {
	t.Helper()
	logs := &syncBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	srv := httptest.NewServer(p.Handler())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = p.Run(ctx)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Errorf("Run did not return after cancel")
			}
		})
	}
	t.Cleanup(func() {
		stop()
		srv.Close()
	})
	return &harness{p: p, srv: srv, stop: stop, logs: logs}
}

// waitReady waits until the proxy answers health with 200.
func (h *harness) waitReady(t testing.TB) {
	t.Helper()
	waitFor(t, "proxy ready", func() bool { return h.p.Ready() })
}

// waitFor polls cond every few milliseconds for up to 5 seconds.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// do sends a request to the proxy; headers are name, value pairs. The
// client key is sent unless headers set the Authorization header itself
// (use "Authorization", "" to send none).
func (h *harness) do(t testing.TB, method, path, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", testClientKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// toggles decodes a toggles answer.
func toggles(t testing.TB, body []byte) []clientapi.ToggleResult {
	t.Helper()
	var out clientapi.Toggles
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("not a toggles answer: %v: %s", err, body)
	}
	return out.Toggles
}

func names(ts []clientapi.ToggleResult) []string {
	out := make([]string, len(ts))
	for i, tr := range ts {
		out[i] = tr.Name
	}
	return out
}

func find(ts []clientapi.ToggleResult, name string) (clientapi.ToggleResult, bool) {
	for _, tr := range ts {
		if tr.Name == name {
			return tr, true
		}
	}
	return clientapi.ToggleResult{}, false
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func expectStatus(t testing.TB, resp *http.Response, body []byte, want int) {
	t.Helper()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: status %d, want %d; body %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, want, body)
	}
}
