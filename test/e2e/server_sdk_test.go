package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/pgtest"
)

// TestServerSDKAgainstServer runs the Node server SDK unleash-client
// against our server's client API, once on SQLite and once on PostgreSQL: it
// must evaluate every flag as our engine does, and its registration and
// metrics must be accepted.
func TestServerSDKAgainstServer(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { serverSDKAgainstServer(t, "") })
	t.Run("postgres", func(t *testing.T) { serverSDKAgainstServer(t, pgtest.NewDatabase(t)) })
}

func serverSDKAgainstServer(t *testing.T, databaseURL string) {
	dir := requireNode(t)
	server := startServer(t, databaseURL)
	flags := createFixture(t, server)

	status, body := call(t, "GET", server+"/api/client/features", clientToken, nil)
	if status != http.StatusOK {
		t.Fatalf("client features: %d %s", status, body)
	}
	var payload clientapi.Features
	if err := json.Unmarshal(body, &payload); err != nil {
		t.Fatal(err)
	}
	snap := engine.Compile(&payload, engine.Options{})
	if w := snap.Warnings(); len(w) > 0 {
		t.Fatalf("our engine could not read our own payload: %v", w)
	}

	ctxs := contexts(200, 1)
	cases := map[string]any{"flags": names(flags), "contexts": ctxs}
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	data, _ := json.Marshal(cases)
	if err := os.WriteFile(casesFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := runNode(t, dir, "server-sdk.cjs", "URL="+server+"/api", "TOKEN="+clientToken, "CASES="+casesFile)
	var got struct {
		Registered bool `json:"registered"`
		Results    []struct {
			Flag    string      `json:"flag"`
			Context wireContext `json:"context"`
			Enabled bool        `json:"enabled"`
			Variant struct {
				Name    string             `json:"name"`
				Enabled bool               `json:"enabled"`
				Payload *clientapi.Payload `json:"payload"`
			} `json:"variant"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("SDK output %s: %v", out, err)
	}
	if !got.Registered {
		t.Error("the SDK did not register")
	}
	random := map[string]bool{}
	for _, f := range flags {
		random[f.name] = f.random
	}
	compared, skipped := 0, 0
	for _, r := range got.Results {
		props := map[string]*string{}
		for k, v := range r.Context.Properties {
			props[k] = &v
		}
		wc := clientapi.Context{UserID: r.Context.UserID, SessionID: r.Context.SessionID, Properties: props}
		ctx := engine.ContextFromWire(&wc)
		want := snap.Evaluate(r.Flag, &ctx)
		if random[r.Flag] {
			skipped++
			continue
		}
		compared++
		if want.Enabled != r.Enabled || want.Variant.Name != r.Variant.Name || want.Variant.Enabled != r.Variant.Enabled ||
			!samePayload(want.Variant.Payload, r.Variant.Payload) {
			t.Errorf("%s for %+v: SDK says enabled=%v variant=%+v; our engine says enabled=%v variant=%+v",
				r.Flag, r.Context, r.Enabled, r.Variant, want.Enabled, want.Variant)
		}
	}
	t.Logf("compared %d evaluations with the Node SDK, skipped %d of random flags", compared, skipped)
	if compared < 1000 {
		t.Errorf("only %d evaluations compared", compared)
	}
	// The SDK's metrics reached the server: the application is listed.
	status, body = call(t, "GET", server+"/api/admin/metrics/applications", adminToken, nil)
	if status != http.StatusOK || !json.Valid(body) || !strings.Contains(string(body), "compat-server-sdk") {
		t.Errorf("applications after the SDK ran: %d %s", status, body)
	}
}

func samePayload(a, b *clientapi.Payload) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
