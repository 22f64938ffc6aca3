package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/fixture"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// TestClientFeaturesGzipSize bounds the compressed client answer by the
// flags it carries: it must be no larger than the generated payload the
// flags were seeded from, encoded as JSON and compressed at gzip's default
// level (the level Unleash's compression middleware uses). Whatever the
// server adds to the flags (query, meta, defaults) must therefore cost
// less than the best level saves; per-strategy random ids did not.
func TestClientFeaturesGzipSize(t *testing.T) {
	for _, n := range []int{60, 500} {
		st, err := sqlstore.Open(context.Background(), filepath.Join(t.TempDir(), "signalbox.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		ts := newTestServerOn(t, st)
		payload := fixture.Features(n, 1)
		if err := fixture.Seed(context.Background(), st, payload, store.EnvDevelopment); err != nil {
			t.Fatal(err)
		}
		res := ts.request("GET", "/api/client/features", testClientToken, nil, "Accept-Encoding", "gzip").must(t, http.StatusOK)
		if res.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("%d flags: Content-Encoding %q", n, res.Header.Get("Content-Encoding"))
		}
		var got clientapi.Features
		if err := json.Unmarshal(gunzip(t, res.Body), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Features) != n {
			t.Fatalf("%d flags: the answer has %d", n, len(got.Features))
		}
		source, err := json.Marshal(payload)
		if err != nil {
			t.Fatal(err)
		}
		bound := len(gzipAt(t, source, gzip.DefaultCompression))
		if len(res.Body) > bound {
			t.Errorf("%d flags: gzip answer is %d bytes, more than the seeded flags at the default level (%d)", n, len(res.Body), bound)
		}
		t.Logf("%d flags: gzip answer %d bytes, bound %d", n, len(res.Body), bound)
	}
}

// TestClientFeaturesOmitStrategyIDs checks the wire form of both client
// APIs: strategies carry neither id nor sortOrder, as Unleash's, and keep
// their order.
func TestClientFeaturesOmitStrategyIDs(t *testing.T) {
	ts := newTestServer(t)
	seedFlag(t, ts, "two-strategies", store.Strategy{Name: "userWithId", Parameters: map[string]string{"userIds": "7"}})
	ts.admin("POST", "/api/admin/projects/default/features/two-strategies/environments/development/strategies",
		map[string]any{"name": "default"}).must(t, http.StatusOK)
	for _, path := range []string{"/api/client/features", "/api/client/delta"} {
		res := ts.request("GET", path, testClientToken, nil).must(t, http.StatusOK)
		var strategies []map[string]any
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if v["name"] == "two-strategies" {
					for _, s := range v["strategies"].([]any) {
						strategies = append(strategies, s.(map[string]any))
					}
					return
				}
				for _, e := range v {
					walk(e)
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			}
		}
		walk(res.JSON())
		if len(strategies) != 2 || strategies[0]["name"] != "userWithId" || strategies[1]["name"] != "default" {
			t.Fatalf("%s: strategies %v", path, strategies)
		}
		for _, s := range strategies {
			for _, field := range []string{"id", "sortOrder"} {
				if _, ok := s[field]; ok {
					t.Errorf("%s: strategy %v carries %q", path, s["name"], field)
				}
			}
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func gzipAt(t *testing.T, b []byte, level int) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, level)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
