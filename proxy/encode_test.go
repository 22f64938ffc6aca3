package proxy

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// TestAppendTogglesMatchesEncodingJSON: the hand-written encoder and
// encoding/json of clientapi.Toggles decode to the same document.
func TestAppendTogglesMatchesEncodingJSON(t *testing.T) {
	results := []engine.Result{
		{Name: "a", Found: true, Enabled: true, ImpressionData: true, Variant: engine.Variant{Name: "disabled", FeatureEnabled: true}},
		{Name: "b \"quoted\" <tag> & ü", Found: true, Enabled: true, Variant: engine.Variant{Name: "blue", Enabled: true, FeatureEnabled: true,
			Payload: &clientapi.Payload{Type: "json", Value: `{"k":"v\n","n":[1,2]}`}}},
		{Name: "c", Variant: engine.Variant{Name: "disabled"}},
		{Name: "ctl\x01\u2028", Found: true, Enabled: true, Variant: engine.Variant{Name: "x", Enabled: true, FeatureEnabled: true,
			Payload: &clientapi.Payload{Type: "string", Value: ""}}},
	}
	got := appendToggles(nil, results, nil)
	cached := appendToggles(nil, results, newPayloadCache(&clientapi.Features{Features: []clientapi.Feature{{Variants: []clientapi.Variant{{Payload: results[1].Variant.Payload}}}}}))
	if string(cached) != string(got) {
		t.Errorf("cached payload encoding differs:\n%s\n%s", cached, got)
	}
	want := clientapi.Toggles{Toggles: make([]clientapi.ToggleResult, len(results))}
	for i, r := range results {
		want.Toggles[i] = clientapi.ToggleResult{Name: r.Name, Enabled: r.Enabled, ImpressionData: r.ImpressionData,
			Variant: clientapi.VariantResult{Name: r.Variant.Name, Enabled: r.Variant.Enabled, Payload: r.Variant.Payload,
				FeatureEnabled: r.Variant.FeatureEnabled, FeatureEnabled2: r.Variant.FeatureEnabled}}
	}
	wantJSON, _ := json.Marshal(want)
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, got)
	}
	_ = json.Unmarshal(wantJSON, &w)
	if diff := cmp.Diff(w, g); diff != "" {
		t.Errorf("(-encoding/json +appendToggles):\n%s", diff)
	}
	if string(appendToggles(nil, nil, nil)) != `{"toggles":[]}` {
		t.Errorf("empty list: %s", appendToggles(nil, nil, nil))
	}
}

func TestWeakETag(t *testing.T) {
	a, b := weakETag([]byte("hello")), weakETag([]byte("hellp"))
	if a == b || a[:3] != `W/"` || a[len(a)-1] != '"' {
		t.Errorf("tags %s %s", a, b)
	}
	if weakETag([]byte("hello")) != a {
		t.Error("tag is not stable")
	}
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{a, true}, {a[2:], true}, {"*", true}, {`W/"x", ` + a, true}, {`W/"x"`, false}, {"", false},
	} {
		if got := etagMatches([]string{tc.header}, a); got != tc.want {
			t.Errorf("If-None-Match %q: %v", tc.header, got)
		}
	}
}

// TestPlain8 compares the eight-byte test with the byte table for every
// byte value at every position.
func TestPlain8(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			buf := []byte("abcdefgh")
			buf[pos] = byte(c)
			want := c < 0x80 && safeASCII[c]
			if got := plain8(string(buf)); got != want {
				t.Errorf("byte %#x at %d: plain8 %v, want %v", c, pos, got, want)
			}
		}
	}
}
