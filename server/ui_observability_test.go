package server

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store/sqlstore"
)

func TestRecordUIError(t *testing.T) {
	ctx := context.Background()
	st, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := Bootstrap(ctx, st, BootstrapConfig{AdminTokens: []string{testAdminToken}, ClientTokens: []string{testClientToken}}); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	srv, err := New(ctx, st, Config{Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(refRecorder(srv.Handler()))
	t.Cleanup(hs.Close)
	ts := &testServer{t: t, srv: srv, url: hs.URL}

	const path = "/api/admin/record-ui-error"
	long := strings.Repeat("é", 5000)
	mark := auditMark(t, ts)
	ts.admin("POST", path, map[string]string{"errorMessage": "Cannot read properties of undefined " + long, "errorStack": "at Flag.tsx:12 " + long}).must(t, http.StatusNoContent)
	out := logs.String()
	if !strings.Contains(out, "UI error reported") || !strings.Contains(out, "Cannot read properties of undefined") || !strings.Contains(out, "Flag.tsx:12") {
		t.Fatalf("log %s", out)
	}
	if n := len(out); n > 3*(uiErrorMessageMax+uiErrorStackMax)+500 {
		t.Errorf("log line of %d bytes: not bounded", n)
	}
	if ev := auditAfter(t, ts, mark); len(ev) != 0 {
		t.Errorf("events %+v", ev)
	}
	ts.admin("POST", path, map[string]string{"errorStack": "x"}).must(t, http.StatusBadRequest)
	ts.admin("POST", path, "{").must(t, http.StatusBadRequest)
	ts.request("POST", path, "", map[string]string{"errorMessage": "x"}).must(t, http.StatusUnauthorized)
	ts.request("POST", path, testClientToken, map[string]string{"errorMessage": "x"}).must(t, http.StatusForbidden)
}

// syncBuffer is a bytes.Buffer the server's goroutines may log into.
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

func TestUIErrorLimiter(t *testing.T) {
	var l uiErrorLimiter
	start := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	for i := range uiErrorsPerMinute {
		if ok, _ := l.allow(start.Add(time.Duration(i) * time.Second)); !ok {
			t.Fatalf("report %d refused", i)
		}
	}
	for range 5 {
		if ok, _ := l.allow(start.Add(59 * time.Second)); ok {
			t.Fatal("report past the bound logged")
		}
	}
	if ok, dropped := l.allow(start.Add(time.Minute)); !ok || dropped != 5 {
		t.Errorf("next minute: %v, %d dropped", ok, dropped)
	}
}

func TestTelemetrySettings(t *testing.T) {
	ts := newTestServer(t)
	res := ts.admin("GET", "/api/admin/telemetry/settings", nil).must(t, http.StatusOK)
	matchesUnleash(t, unleashReference(t), "telemetrySettingsSchema", res.Body)
	if o := res.Object(); o["versionInfoCollectionEnabled"] != false || o["featureInfoCollectionEnabled"] != false {
		t.Errorf("%s", res.Body)
	}
	ts.request("GET", "/api/admin/telemetry/settings", "", nil).must(t, http.StatusUnauthorized)
}
