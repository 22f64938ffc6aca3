package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// Tokens every test server accepts from the start.
const (
	testAdminToken    = "*:*.admin-secret-for-tests"
	testClientToken   = "default:development.client-secret-for-tests"
	testProdToken     = "*:production.client-secret-prod"
	testFrontendToken = "default:development.frontend-secret-for-tests"
	testAdminPassword = "Correct-Horse-Battery-9"
)

// testServer is a real server over a real SQLite file, on loopback.
type testServer struct {
	t   *testing.T
	srv *Server
	url string
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	return newTestServerAt(t, filepath.Join(t.TempDir(), "signalbox.db"))
}

// newPostgresTestServer is newTestServer over a fresh PostgreSQL database
// from internal/pgtest: skipped where PostgreSQL is not installed, except
// under CI, where that fails instead.
func newPostgresTestServer(t *testing.T) *testServer {
	t.Helper()
	return newTestServerAt(t, pgtest.NewDatabase(t))
}

// newTestServerAt is a test server over the database at dbURL.
func newTestServerAt(t *testing.T, dbURL string) *testServer {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return newTestServerOn(t, st)
}

// newTestServerOn is a test server over an open store, so that several
// servers can share one database.
func newTestServerOn(t *testing.T, st store.Store) *testServer {
	t.Helper()
	return newTestServerWith(t, st, Config{})
}

// newTestServerWith is newTestServerOn with a configuration; its Log is
// set here.
func newTestServerWith(t *testing.T, st store.Store, cfg Config) *testServer {
	t.Helper()
	ctx := context.Background()
	if _, err := Bootstrap(ctx, st, BootstrapConfig{
		AdminTokens: []string{testAdminToken}, ClientTokens: []string{testClientToken, testProdToken},
		FrontendTokens: []string{testFrontendToken}, AdminPassword: testAdminPassword,
	}); err != nil {
		t.Fatal(err)
	}
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := New(ctx, st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	refNoteRoutes(srv.Routes())
	hs := httptest.NewServer(refRecorder(srv.Handler()))
	t.Cleanup(hs.Close)
	return &testServer{t: t, srv: srv, url: hs.URL}
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r response) JSON() any {
	var v any
	_ = json.Unmarshal(r.Body, &v)
	return v
}

// Object decodes the body as a JSON object (nil if it is not one).
func (r response) Object() map[string]any {
	m, _ := r.JSON().(map[string]any)
	return m
}

// Decode decodes the body into v, failing the test on error.
func (r response) Decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// request sends a request with the given token (raw in Authorization; ""
// for none). body may be nil, a string (sent as is) or any value (sent as
// JSON); JSON bodies get Content-Type application/json.
func (ts *testServer) request(method, path, token string, body any, header ...string) response {
	ts.t.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
		ct = "application/json"
	default:
		data, err := json.Marshal(b)
		if err != nil {
			ts.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
		ct = "application/json"
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return response{Status: res.StatusCode, Header: res.Header, Body: data}
}

// admin sends a request with the admin token.
func (ts *testServer) admin(method, path string, body any) response {
	ts.t.Helper()
	return ts.request(method, path, testAdminToken, body)
}

// must fails the test unless the response has status want.
func (r response) must(t *testing.T, want int) response {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d; body %s", r.Status, want, r.Body)
	}
	return r
}
