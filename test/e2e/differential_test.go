package e2e

import (
	"encoding/json"
	"fmt"
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
	// variantBytes is the variant object as written: its members in the
	// writer's order.
	variantBytes string
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
	var raw struct {
		Toggles []struct {
			Variant json.RawMessage `json:"variant"`
		} `json:"toggles"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if err := json.Unmarshal(body, &raw); err != nil || len(raw.Toggles) != len(out.Toggles) {
		t.Fatalf("%s: %v", body, err)
	}
	for i := range out.Toggles {
		out.Toggles[i].variantBytes = string(raw.Toggles[i].Variant)
	}
	return out.Toggles
}

// TestDifferentialAgainstReferenceProxy sends the same generated contexts to
// the reference proxy (@unleash/proxy, pinned in test/compat) and to ours,
// both reading our server: every answer must be identical, down to the
// bytes of each variant object (the reference writes a strategy's variant
// as name, enabled, payload and the flag's as name, payload, enabled).
// Flags where the reference draws at random are left out of the comparison
// and counted.
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
	// kinds counts the variants compared byte for byte by kind: from a
	// strategy or from the flag, with a payload, and the disabled one.
	kinds := map[string]int{}
	byteDiffs := 0
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
		for name, want := range am {
			if got, ok := bm[name]; ok && got.variantBytes != want.variantBytes && byteDiffs < 5 {
				byteDiffs++
				t.Errorf("%s %+v, flag %s: variant written\n reference %s\n ours      %s", method, ctx, name, want.variantBytes, got.variantBytes)
			}
			switch {
			case want.Variant["payload"] == nil:
				kinds[fmt.Sprint("no payload, enabled ", want.Variant["enabled"])]++
			case name == "sv.flag":
				kinds["strategy's, with payload"]++
			default:
				kinds["flag's, with payload"]++
			}
		}
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
	t.Logf("%d contexts: %d toggle answers compared, %d of random flags excluded, %d contexts differed; variants by kind %v", len(ctxs), compared, excluded, mismatches, kinds)
	for _, kind := range []string{"strategy's, with payload", "flag's, with payload", "no payload, enabled true", "no payload, enabled false"} {
		if kinds[kind] == 0 {
			t.Errorf("no variant %s was compared", kind)
		}
	}
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
