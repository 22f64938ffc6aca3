package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/proxy"
	"github.com/signalbox/signalbox/store"
)

// TestFrontendPostMatchesProxy: the same POST body gives byte-identical
// answers from the server's /api/frontend and from a proxy that reads the
// server. Unknown top-level context members are properties, numbers and
// booleans are taken as written, and "properties" wins over a same-named
// top-level member, on both.
func TestFrontendPostMatchesProxy(t *testing.T) {
	ts := newTestServer(t)
	in := func(field string, values ...string) store.Strategy {
		return store.Strategy{Name: "default", Constraints: []clientapi.Constraint{{ContextName: field, Operator: "IN", Values: values}}}
	}
	seedFlag(t, ts, "tier-gold", in("tier", "gold"))
	seedFlag(t, ts, "plan-pro", in("plan", "pro"))
	seedFlag(t, ts, "beta-true", in("beta", "true"))
	seedFlag(t, ts, "age-over-40", store.Strategy{Name: "default", Constraints: []clientapi.Constraint{{ContextName: "age", Operator: "NUM_GT", Value: "40"}}})
	seedFlag(t, ts, "user-7", store.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "7"}},
		clientapi.Variant{Name: "blue", Weight: 1000, Payload: &clientapi.Payload{Type: "json", Value: `{"k":"<v>"}`}})

	p, err := proxy.New(proxy.Config{
		ServiceURL: ts.url + "/api", ServiceAPIToken: testClientToken, ClientKeys: []string{"proxy-key"},
		RefreshInterval: 20 * time.Millisecond, BackupDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = p.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	ps := httptest.NewServer(p.Handler())
	t.Cleanup(ps.Close)
	deadline := time.Now().Add(5 * time.Second)
	for !p.Ready() {
		if time.Now().After(deadline) {
			t.Fatal("proxy not ready")
		}
		time.Sleep(5 * time.Millisecond)
	}

	post := func(url, key, body string) []byte {
		t.Helper()
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", url, res.StatusCode, b)
		}
		return b
	}
	// The fixed members make the two fill in nothing differently: the
	// server would take the token's environment and the proxy "default".
	const fixed = `"environment":"development","appName":"web","sessionId":"s1","remoteAddress":"10.0.0.1"`
	for _, tc := range []struct {
		name, context string
		on            []string // by name
	}{
		{"unknown top-level members", `"tier":"gold","plan":"pro"`, []string{"plan-pro", "tier-gold"}},
		{"nested properties", `"properties":{"tier":"gold","plan":"pro"}`, []string{"plan-pro", "tier-gold"}},
		{"numbers and booleans", `"age":42,"beta":true,"userId":7`, []string{"age-over-40", "beta-true", "user-7"}},
		{"properties win over top-level", `"tier":"gold","properties":{"tier":"silver","age":41}`, []string{"age-over-40"}},
		{"null and objects ignored", `"tier":null,"plan":{"x":1},"properties":{"beta":null}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"context":{` + fixed + `,` + tc.context + `}}`
			fromServer := post(ts.url+"/api/frontend", testFrontendToken, body)
			fromProxy := post(ps.URL+"/proxy", "proxy-key", body)
			if !bytes.Equal(fromServer, fromProxy) {
				t.Errorf("answers differ\nserver %s\nproxy  %s", fromServer, fromProxy)
			}
			var got clientapi.Toggles
			decodeInto(t, fromServer, &got)
			var names []string
			for _, tg := range got.Toggles {
				names = append(names, tg.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.on, ",") {
				t.Errorf("enabled %v, want %v", names, tc.on)
			}
			// With a toggles list too.
			listed := `{"toggles":["tier-gold","plan-pro","age-over-40","ghost"],"context":{` + fixed + `,` + tc.context + `}}`
			if a, b := post(ts.url+"/api/frontend", testFrontendToken, listed), post(ps.URL+"/proxy", "proxy-key", listed); !bytes.Equal(a, b) {
				t.Errorf("toggles-list answers differ\nserver %s\nproxy  %s", a, b)
			}
		})
	}
	// A shape error is a validation error with the API's error body.
	res := ts.request("POST", "/api/frontend", testFrontendToken, `{"context":{"userId":{"a":1}}}`).must(t, http.StatusBadRequest)
	if o := res.Object(); o["name"] != "ValidationError" || !strings.Contains(o["message"].(string), "userId") {
		t.Errorf("shape error %s", res.Body)
	}
}

func decodeInto(t *testing.T, b []byte, v any) {
	t.Helper()
	response{Body: b}.Decode(t, v)
}
