package e2e

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

type toggle struct {
	Name           string         `json:"name"`
	Enabled        bool           `json:"enabled"`
	ImpressionData *bool          `json:"impressionData"`
	Variant        map[string]any `json:"variant"`
}

func proxyAnswer(t *testing.T, method, proxyURL string, ctx wireContext, flags []string) []toggle {
	t.Helper()
	var status int
	var body []byte
	if method == "POST" {
		status, body = call(t, "POST", proxyURL+"/proxy", clientKey, map[string]any{"context": ctx, "toggles": flags})
	} else {
		q := url.Values{}
		if ctx.UserID != "" {
			q.Set("userId", ctx.UserID)
		}
		q.Set("sessionId", ctx.SessionID)
		for k, v := range ctx.Properties {
			q.Set("properties["+k+"]", v)
		}
		status, body = call(t, "GET", proxyURL+"/proxy?"+q.Encode(), clientKey, nil)
	}
	if status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, proxyURL, status, body)
	}
	var out struct {
		Toggles []toggle `json:"toggles"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out.Toggles
}

// TestDifferentialAgainstReferenceProxy sends the same generated contexts to
// the reference proxy (@unleash/proxy, pinned in test/compat) and to ours,
// both reading our server: every answer must be identical. Flags where the
// reference draws at random are left out of the comparison and counted.
func TestDifferentialAgainstReferenceProxy(t *testing.T) {
	dir := requireNode(t)
	server := startServer(t, "")
	flags := createFixture(t, server)
	ours := startProxy(t, server, nil)

	refPort := freePort(t)
	ref := start(t, []string{"UNLEASH_URL=" + server + "/api", "UNLEASH_API_TOKEN=" + clientToken,
		"UNLEASH_PROXY_CLIENT_KEYS=" + clientKey, "PORT=" + itoa(refPort)}, "node", dir+"/reference-proxy.cjs")
	reference := base(refPort)
	waitFor(t, reference+"/proxy/health", http.StatusOK, ref)

	random := map[string]bool{}
	for _, f := range flags {
		random[f.name] = f.random
	}
	all := names(flags)
	compared, excluded, mismatches := 0, 0, 0
	ctxs := contexts(1000, 42)
	for i, ctx := range ctxs {
		method := "POST"
		if i%4 == 3 {
			method = "GET" // GET answers list enabled flags only
		}
		a := proxyAnswer(t, method, reference, ctx, all)
		b := proxyAnswer(t, method, ours, ctx, all)
		am, bm := byName(a, random), byName(b, random)
		excluded += len(a) - len(am)
		compared += len(am)
		if !reflect.DeepEqual(am, bm) {
			mismatches++
			if mismatches <= 5 {
				for name, want := range am {
					if got := bm[name]; !reflect.DeepEqual(want, got) {
						t.Errorf("%s %+v, flag %s:\n reference %+v\n ours      %+v", method, ctx, name, want, got)
					}
				}
				for name, got := range bm {
					if _, ok := am[name]; !ok {
						t.Errorf("%s %+v: we answer %s (%+v), the reference does not", method, ctx, name, got)
					}
				}
			}
		}
	}
	t.Logf("%d contexts: %d toggle answers compared, %d of random flags excluded, %d contexts differed", len(ctxs), compared, excluded, mismatches)
	if mismatches > 0 {
		t.Errorf("%d of %d contexts got different answers", mismatches, len(ctxs))
	}
	if compared < 10000 {
		t.Errorf("only %d toggle answers compared", compared)
	}
}

func byName(ts []toggle, skip map[string]bool) map[string]toggle {
	out := map[string]toggle{}
	for _, t := range ts {
		if !skip[t.Name] {
			out[t.Name] = t
		}
	}
	return out
}
