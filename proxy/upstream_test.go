package proxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/buildinfo"
)

// TestUpstreamRequests checks what a poll and the registration carry:
// serviceUrl, serviceApiToken, serviceAppName, serviceInstanceId,
// refreshInterval and metricsInterval, and the identifying headers.
func TestUpstreamRequests(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.ServiceInstanceID = "instance-7"
	cfg.RefreshInterval = 30 * time.Millisecond
	cfg.MetricsInterval = 40 * time.Millisecond
	h := startProxy(t, cfg)
	h.waitReady(t)
	waitFor(t, "a second poll", func() bool { return up.pollCount() >= 2 })
	waitFor(t, "registration", func() bool { return len(up.registerPosts()) >= 1 })

	first := up.firstPoll()
	if first.URL.Path != "/api/client/features" {
		t.Errorf("poll path %s", first.URL.Path)
	}
	want := map[string]string{
		"Authorization":         testToken,
		"User-Agent":            testAppName + " signalbox-proxy/" + buildinfo.Version(),
		"Unleash-Appname":       testAppName,
		"Unleash-Instanceid":    "instance-7",
		"Unleash-Sdk":           "signalbox-proxy:dev",
		"Unleash-Interval":      "30",
		"Unleash-Client-Spec":   "6.1.0",
		"Accept-Encoding":       "gzip",
		"Unleash-Connection-Id": "",
	}
	for k, v := range want {
		got := first.Header.Get(k)
		if k == "Unleash-Connection-Id" {
			if _, err := uuid.Parse(got); err != nil {
				t.Errorf("%s %q is not a uuid", k, got)
			}
			continue
		}
		if got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if first.Header.Get("If-None-Match") != "" {
		t.Errorf("first poll sent If-None-Match")
	}
	if got := up.lastPoll().Header.Get("If-None-Match"); got != `"rev-1"` {
		t.Errorf("later poll If-None-Match %q", got)
	}

	reg := up.registerPosts()[0]
	if reg.header.Get("Unleash-Interval") != "40" || reg.header.Get("Authorization") != testToken {
		t.Errorf("register headers %v", reg.header)
	}
	var body map[string]any
	if err := json.Unmarshal(reg.body, &body); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"appName", "instanceId", "sdkVersion", "strategies", "started", "interval", "connectionId", "platformName", "platformVersion", "specVersion"} {
		if _, ok := body[k]; !ok {
			t.Errorf("registration lacks %s: %s", k, reg.body)
		}
	}
	if body["appName"] != testAppName || body["instanceId"] != "instance-7" || body["interval"] != 40.0 ||
		body["connectionId"] != first.Header.Get("Unleash-Connection-Id") {
		t.Errorf("registration %s", reg.body)
	}
	var strategies []string
	for _, s := range body["strategies"].([]any) {
		strategies = append(strategies, s.(string))
	}
	if !slices.Equal(strategies, engine.BuiltinStrategies()) {
		t.Errorf("strategies %v", strategies)
	}
}

func TestGeneratedInstanceID(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	if id := up.lastPoll().Header.Get("UNLEASH-INSTANCEID"); id == "" || id != h.p.Config().ServiceInstanceID {
		t.Errorf("instance id %q", id)
	}
}

// TestRefreshIntervalPicksUpChanges: a new configuration upstream is
// served after the next poll.
func TestRefreshIntervalPicksUpChanges(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	up.set(func(f *fakeUpstream) {
		f.payload = []byte(`{"version":2,"features":[{"name":"brand-new","enabled":true,"strategies":[],"variants":[]}]}`)
		f.etag = `"rev-2"`
	})
	waitFor(t, "new configuration", func() bool {
		_, body := h.do(t, "GET", "/proxy", "")
		return slices.Equal(names(toggles(t, body)), []string{"brand-new"})
	})
}

func TestFilters(t *testing.T) {
	up := newFakeUpstream(t)
	cfg := testConfig(t, up.url())
	cfg.NamePrefix = "o"
	cfg.ProjectName = "default"
	cfg.Tags = []Tag{{"simple", "a"}, {"team", "b c"}}
	h := startProxy(t, cfg)
	h.waitReady(t)
	q := up.lastPoll().URL.Query()
	if q.Get("namePrefix") != "o" || !slices.Equal(q["project"], []string{"default"}) ||
		!slices.Equal(q["tag"], []string{"simple:a", "team:b c"}) {
		t.Errorf("poll query %v", q)
	}
	// The fake ignores the filters; the proxy applies prefix and project
	// itself: other-project-flag is in project "other".
	_, body := h.do(t, "GET", "/proxy", "")
	if got := names(toggles(t, body)); !slices.Equal(got, []string{"on-default"}) {
		t.Errorf("filtered flags %v", got)
	}
}

func TestGzipUpstream(t *testing.T) {
	up := newFakeUpstream(t)
	up.set(func(f *fakeUpstream) { f.gzip = true })
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	_, body := h.do(t, "GET", "/proxy", "")
	if diff := cmp.Diff(enabledForAnonymous, names(toggles(t, body))); diff != "" {
		t.Errorf("gzip payload (-want +got):\n%s", diff)
	}
}

// TestUpstreamTroubleKeepsServing: 500s, garbage and a slow upstream keep
// the last good configuration in use, and one line is logged per state
// change, not per poll.
func TestUpstreamTroubleKeepsServing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(f *fakeUpstream)
	}{
		{"500", func(f *fakeUpstream) { f.status = 500 }},
		{"502", func(f *fakeUpstream) { f.status = 502 }},
		{"garbage", func(f *fakeUpstream) { f.garbage = true }},
		{"empty object", func(f *fakeUpstream) { f.payload, f.etag = []byte(`{"version":2}`), `"rev-x"` }},
		{"slow", func(f *fakeUpstream) { f.delay = 3 * time.Second }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := newFakeUpstream(t)
			cfg := testConfig(t, up.url())
			cfg.UpstreamTimeout = 100 * time.Millisecond
			h := startProxy(t, cfg)
			h.waitReady(t)
			before := up.pollCount()
			up.set(tc.break_)
			waitFor(t, "several failing polls", func() bool { return up.pollCount() >= before+4 })
			resp, body := h.do(t, "GET", "/proxy", "")
			expectStatus(t, resp, body, http.StatusOK)
			if diff := cmp.Diff(enabledForAnonymous, names(toggles(t, body))); diff != "" {
				t.Errorf("after trouble (-want +got):\n%s", diff)
			}
			if n := strings.Count(h.logs.String(), "cannot fetch the configuration"); n != 1 {
				t.Errorf("logged the failure %d times, want once:\n%s", n, h.logs.String())
			}
			up.set(func(f *fakeUpstream) {
				f.status, f.garbage, f.delay, f.payload, f.etag = 0, false, 0, []byte(testPayload), `"rev-9"`
			})
			waitFor(t, "recovery logged", func() bool { return strings.Contains(h.logs.String(), "upstream answers again") })
		})
	}
}

func TestBackoff(t *testing.T) {
	const iv = 100 * time.Millisecond
	if backoff(iv, 0) != iv {
		t.Errorf("no failures: %v", backoff(iv, 0))
	}
	for f := 1; f < 40; f++ {
		d := backoff(iv, f)
		ceiling := min(iv<<min(f, 10), 10*iv)
		if d < ceiling/2 || d > ceiling {
			t.Errorf("failures %d: %v not in [%v, %v]", f, d, ceiling/2, ceiling)
		}
	}
}

// TestBackupRestoreWithUpstreamDown: a proxy that saved a configuration is
// ready at once on restart with the upstream down.
func TestBackupRestoreWithUpstreamDown(t *testing.T) {
	up := newFakeUpstream(t)
	dir := t.TempDir()
	cfg := testConfig(t, up.url())
	cfg.BackupDir = dir
	h := startProxy(t, cfg)
	h.waitReady(t)
	path := FileStorage{Dir: dir}.Path(BackupKey(cfg))
	waitFor(t, "backup file", func() bool { _, err := os.Stat(path); return err == nil })
	h.stop()

	up.set(func(f *fakeUpstream) { f.status = http.StatusServiceUnavailable })
	h2 := startProxy(t, cfg)
	h2.waitReady(t)
	_, body := h2.do(t, "GET", "/proxy", "")
	if diff := cmp.Diff(enabledForAnonymous, names(toggles(t, body))); diff != "" {
		t.Errorf("from backup (-want +got):\n%s", diff)
	}
	// Without a backup the same proxy stays not ready.
	cfg3 := testConfig(t, deadURL(t))
	h3 := startProxy(t, cfg3)
	time.Sleep(100 * time.Millisecond)
	resp, body := h3.do(t, "GET", "/proxy", "")
	expectStatus(t, resp, body, http.StatusServiceUnavailable)
}

// TestBackupOfAnotherConfigurationIsNeverRead: the backup is keyed by the
// upstream URL (with its filters) and the token, not by the app name
// alone, so a proxy of the same name with another token, upstream or
// filter does not serve it, nor a file under the app name alone.
func TestBackupOfAnotherConfigurationIsNeverRead(t *testing.T) {
	up := newFakeUpstream(t)
	dir := t.TempDir()
	cfg := testConfig(t, up.url())
	cfg.BackupDir = dir
	h := startProxy(t, cfg)
	h.waitReady(t)
	path := FileStorage{Dir: dir}.Path(BackupKey(cfg))
	waitFor(t, "backup file", func() bool { _, err := os.Stat(path); return err == nil })
	h.stop()
	if strings.Contains(path, "upstream-secret") || !strings.Contains(path, testAppName) {
		t.Errorf("backup file name %s", path)
	}
	// A file under the app name alone, as earlier versions wrote it.
	if err := os.WriteFile(FileStorage{Dir: dir}.Path(testAppName), []byte(testPayload), 0o600); err != nil {
		t.Fatal(err)
	}

	other := newFakeUpstream(t)
	other.set(func(f *fakeUpstream) { f.status = http.StatusServiceUnavailable })
	up.set(func(f *fakeUpstream) { f.status = http.StatusServiceUnavailable })
	for _, tc := range []struct {
		name   string
		change func(c *Config)
	}{
		{"another token", func(c *Config) { c.ServiceAPIToken = "*:production.other-secret" }},
		{"another upstream", func(c *Config) { c.ServiceURL = other.url() }},
		{"another project", func(c *Config) { c.ProjectName = "other" }},
		{"another name prefix", func(c *Config) { c.NamePrefix = "on-" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig(t, up.url())
			c.BackupDir = dir
			tc.change(&c)
			if BackupKey(c) == BackupKey(cfg) {
				t.Fatalf("same key %s", BackupKey(c))
			}
			h := startProxy(t, c)
			waitFor(t, "failed polls", func() bool {
				return up.pollCount()+other.pollCount() > 0 && strings.Contains(h.logs.String(), "cannot fetch")
			})
			if h.p.Ready() {
				t.Fatal("ready from another configuration's backup")
			}
		})
	}
}

// TestUpstreamRefusesTokenAtStart: with the token refused (401 or 403)
// the proxy is not ready and says why, in its 503 answers and in an error
// log line, even with a backup or a bootstrap at hand; it becomes ready
// once the upstream accepts the token.
func TestUpstreamRefusesTokenAtStart(t *testing.T) {
	boot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(testPayload))
	}))
	defer boot.Close()
	for _, tc := range []struct {
		name      string
		status    int
		backup    bool
		bootstrap bool
	}{
		{"401 without backup", http.StatusUnauthorized, false, false},
		{"401 with backup", http.StatusUnauthorized, true, false},
		{"403 with backup", http.StatusForbidden, true, false},
		{"401 with bootstrap", http.StatusUnauthorized, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := newFakeUpstream(t)
			cfg := testConfig(t, up.url())
			if tc.backup {
				h := startProxy(t, cfg)
				h.waitReady(t)
				path := FileStorage{Dir: cfg.BackupDir}.Path(BackupKey(cfg))
				waitFor(t, "backup file", func() bool { _, err := os.Stat(path); return err == nil })
				h.stop()
			}
			if tc.bootstrap {
				cfg.ExpBootstrap.URL = boot.URL + "/bootstrap.json"
			}
			up.set(func(f *fakeUpstream) { f.status = tc.status })
			h := startProxy(t, cfg)
			waitFor(t, "refusal logged", func() bool { return strings.Contains(h.logs.String(), "refuses the proxy's token") })
			// The bootstrap may answer after the first poll: it must not
			// make the proxy ready either.
			time.Sleep(50 * time.Millisecond)
			if h.p.Ready() {
				t.Fatal("ready although the upstream refuses the token")
			}
			if !strings.Contains(h.logs.String(), "level=ERROR") {
				t.Errorf("refusal not logged as an error:\n%s", h.logs.String())
			}
			for _, path := range []string{"/proxy", "/proxy/health"} {
				resp, body := h.do(t, "GET", path, "")
				expectStatus(t, resp, body, http.StatusServiceUnavailable)
				if !strings.Contains(string(body), "refuses the proxy's token") || !strings.Contains(string(body), http.StatusText(tc.status)) {
					t.Errorf("%s 503 body does not say why: %s", path, body)
				}
			}
			if r := h.p.NotReadyReason(); !strings.Contains(r, "SERVICE_API_TOKEN") {
				t.Errorf("NotReadyReason %q", r)
			}
			up.set(func(f *fakeUpstream) { f.status = 0 })
			h.waitReady(t)
			if r := h.p.NotReadyReason(); r != "" {
				t.Errorf("ready, yet NotReadyReason %q", r)
			}
		})
	}
}

// TestUpstreamRefusesTokenLater: once the upstream delivered a
// configuration, a refused token keeps it in use (as SDKs keep their last
// configuration) and is logged once as an error, not once per poll.
func TestUpstreamRefusesTokenLater(t *testing.T) {
	up := newFakeUpstream(t)
	h := startProxy(t, testConfig(t, up.url()))
	h.waitReady(t)
	before := up.pollCount()
	up.set(func(f *fakeUpstream) { f.status = http.StatusUnauthorized })
	waitFor(t, "several refused polls", func() bool { return up.pollCount() >= before+4 })
	resp, body := h.do(t, "GET", "/proxy", "")
	expectStatus(t, resp, body, http.StatusOK)
	logs := h.logs.String()
	if n := strings.Count(logs, "refuses the proxy's token"); n != 1 || !strings.Contains(logs, "level=ERROR") {
		t.Errorf("refusal logged %d times:\n%s", n, logs)
	}
	up.set(func(f *fakeUpstream) { f.status = 0 })
	waitFor(t, "recovery logged", func() bool { return strings.Contains(h.logs.String(), "upstream answers again") })
}

// memStorage is a custom StorageProvider.
type memStorage struct {
	mu   sync.Mutex
	data map[string][]byte
	sets int
}

func (m *memStorage) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data[key], nil
}

func (m *memStorage) Set(_ context.Context, key string, data []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.data[key] = append([]byte(nil), data...)
	m.sets++
	return nil
}

func TestCustomStorageProvider(t *testing.T) {
	dead := deadURL(t)
	key := BackupKey(testConfig(t, dead))
	store := &memStorage{data: map[string][]byte{
		key: []byte(`{"version":2,"features":[{"name":"from-store","enabled":true,"strategies":[],"variants":[]}]}`),
	}}
	cfg := testConfig(t, dead)
	cfg.StorageProvider = store
	h := startProxy(t, cfg)
	h.waitReady(t)
	_, body := h.do(t, "GET", "/proxy", "")
	if got := names(toggles(t, body)); !slices.Equal(got, []string{"from-store"}) {
		t.Errorf("from custom storage %v", got)
	}

	up := newFakeUpstream(t)
	cfg = testConfig(t, up.url())
	cfg.StorageProvider = store
	startProxy(t, cfg)
	waitFor(t, "saved configuration", func() bool {
		store.mu.Lock()
		defer store.mu.Unlock()
		return store.sets > 0 && strings.Contains(string(store.data[BackupKey(cfg)]), "on-default")
	})
	// Unchanged configurations are not written again on every poll.
	waitFor(t, "more polls", func() bool { return up.pollCount() > 5 })
	store.mu.Lock()
	sets := store.sets
	store.mu.Unlock()
	if sets != 1 {
		t.Errorf("backup written %d times for one configuration", sets)
	}
}

func TestFileStorage(t *testing.T) {
	s := FileStorage{Dir: t.TempDir()}
	ctx := context.Background()
	if b, err := s.Get(ctx, "app"); b != nil || err != nil {
		t.Fatalf("missing key: %q %v", b, err)
	}
	if err := s.Set(ctx, "../../evil/app name", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Path("../../evil/app name"), s.Dir) {
		t.Errorf("path escapes the directory: %s", s.Path("../../evil/app name"))
	}
	if b, _ := s.Get(ctx, "../../evil/app name"); string(b) != "x" {
		t.Errorf("read back %q", b)
	}
	if def := (FileStorage{}).Path("a"); !strings.HasPrefix(def, os.TempDir()) {
		t.Errorf("default dir is not the temp dir")
	}
}

// TestBootstrap: expBootstrap.url with its Authorization makes the proxy
// ready while the upstream is down; upstream data replaces it later.
func TestBootstrap(t *testing.T) {
	var gotAuth sync.Map
	boot := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotAuth.Store("auth", r.Header.Get("Authorization"))
		_, _ = w.Write([]byte(`{"version":2,"features":[{"name":"from-bootstrap","enabled":true,"strategies":[],"variants":[]}]}`))
	}))
	defer boot.Close()

	up := newFakeUpstream(t)
	up.set(func(f *fakeUpstream) { f.status = 503 })
	cfg := testConfig(t, up.url())
	cfg.ExpBootstrap = ExpBootstrap{URL: boot.URL + "/bootstrap.json", Authorization: "boot-secret"}
	h := startProxy(t, cfg)
	h.waitReady(t)
	_, body := h.do(t, "GET", "/proxy", "")
	if got := names(toggles(t, body)); !slices.Equal(got, []string{"from-bootstrap"}) {
		t.Errorf("bootstrap flags %v", got)
	}
	if a, _ := gotAuth.Load("auth"); a != "boot-secret" {
		t.Errorf("bootstrap Authorization %q", a)
	}
	up.set(func(f *fakeUpstream) { f.status = 0 })
	waitFor(t, "upstream replaces bootstrap", func() bool {
		_, body := h.do(t, "GET", "/proxy", "")
		return slices.Equal(names(toggles(t, body)), enabledForAnonymous)
	})
}

// TestBootstrapNeverReplacesUpstream: a bootstrap that answers after the
// upstream does not take over.
func TestBootstrapNeverReplacesUpstream(t *testing.T) {
	up := newFakeUpstream(t)
	p, err := New(testConfig(t, up.url()))
	if err != nil {
		t.Fatal(err)
	}
	var f clientapi.Features
	_ = json.Unmarshal([]byte(testPayload), &f)
	if !p.install(&f, fromUpstream) {
		t.Fatal("upstream not installed")
	}
	if p.install(&clientapi.Features{Features: []clientapi.Feature{}}, fromBootstrap) || p.install(&clientapi.Features{}, fromBackup) {
		t.Error("a lesser source replaced the upstream's configuration")
	}
}

func TestRejectUnauthorized(t *testing.T) {
	tlsUp := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/client/features" {
			_, _ = w.Write([]byte(testPayload))
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer tlsUp.Close()

	// Default: the self-signed certificate is refused.
	h := startProxy(t, testConfig(t, tlsUp.URL+"/api"))
	waitFor(t, "a refused poll", func() bool { return strings.Contains(h.logs.String(), "certificate") })
	if h.p.Ready() {
		t.Fatal("ready through an untrusted certificate")
	}
	// rejectUnauthorized=false accepts it.
	cfg := testConfig(t, tlsUp.URL+"/api")
	no := false
	cfg.HTTPOptions.RejectUnauthorized = &no
	h2 := startProxy(t, cfg)
	h2.waitReady(t)
}
