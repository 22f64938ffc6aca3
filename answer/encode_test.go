package answer

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// TestAppendTogglesMatchesEncodingJSON: the hand-written encoder writes the
// same bytes as encoding/json of clientapi.Toggles without HTML escaping.
func TestAppendTogglesMatchesEncodingJSON(t *testing.T) {
	results := []engine.Result{
		{Name: "a", Found: true, Enabled: true, ImpressionData: true, Variant: engine.Variant{Name: "disabled", FeatureEnabled: true}},
		{Name: "b \"quoted\" <tag> & ü", Found: true, Enabled: true, Variant: engine.Variant{Name: "blue", Enabled: true, FeatureEnabled: true,
			Payload: &clientapi.Payload{Type: "json", Value: `{"k":"v\n","n":[1,2]}`}}},
		{Name: "c", Variant: engine.Variant{Name: "disabled"}},
		{Name: "ctl\x01\u2028", Found: true, Enabled: true, Variant: engine.Variant{Name: "x", Enabled: true, FeatureEnabled: true,
			Payload: &clientapi.Payload{Type: "string", Value: ""}}},
	}
	got, etag := appendToggles(nil, results, nil, false)
	if etag != weakETag(got) {
		t.Errorf("without pieces the tag is %s, want the bytes' %s", etag, weakETag(got))
	}
	want := clientapi.Toggles{Toggles: make([]clientapi.ToggleResult, len(results))}
	for i, r := range results {
		want.Toggles[i] = clientapi.ToggleResult{Name: r.Name, Enabled: r.Enabled, ImpressionData: r.ImpressionData,
			Variant: clientapi.VariantResult{Name: r.Variant.Name, Enabled: r.Variant.Enabled, Payload: r.Variant.Payload,
				FeatureEnabled: r.Variant.FeatureEnabled, FeatureEnabled2: r.Variant.FeatureEnabled}}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(want); err != nil {
		t.Fatal(err)
	}
	wantJSON := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if !bytes.Equal(got, wantJSON) {
		t.Errorf("appendToggles and encoding/json differ:\n got %s\nwant %s", got, wantJSON)
	}
	if empty, _ := appendToggles(nil, nil, nil, false); string(empty) != `{"toggles":[]}` {
		t.Errorf("empty list: %s", empty)
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
		if got := ETagMatches([]string{tc.header}, a); got != tc.want {
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

// TestVariantKeyOrder: a variant's members are in the reference's order,
// byte for byte, with and without a payload, so that answers of the two
// can be compared and hashed.
func TestVariantKeyOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    engine.Result
		want string
	}{
		{"payload", engine.Result{Name: "f", Found: true, Enabled: true, Variant: engine.Variant{Name: "blue", Enabled: true, FeatureEnabled: true,
			Payload: &clientapi.Payload{Type: "string", Value: "v"}}},
			`{"name":"f","enabled":true,"variant":{"name":"blue","payload":{"type":"string","value":"v"},"enabled":true,"feature_enabled":true,"featureEnabled":true},"impressionData":false}`},
		{"no payload", engine.Result{Name: "g", Variant: engine.Variant{Name: "disabled"}},
			`{"name":"g","enabled":false,"variant":{"name":"disabled","enabled":false,"feature_enabled":false,"featureEnabled":false},"impressionData":false}`},
		{"disabled while on", engine.Result{Name: "h", Found: true, Enabled: true, Variant: engine.Variant{Name: "disabled", FeatureEnabled: true}},
			`{"name":"h","enabled":true,"variant":{"name":"disabled","enabled":false,"feature_enabled":true,"featureEnabled":true},"impressionData":false}`},
		{"flag variant without payload", engine.Result{Name: "i", Found: true, Enabled: true, Variant: engine.Variant{Name: "red", Enabled: true, FeatureEnabled: true}},
			`{"name":"i","enabled":true,"variant":{"name":"red","enabled":true,"feature_enabled":true,"featureEnabled":true},"impressionData":false}`},
		// A strategy's variant: enabled before payload, as the reference
		// writes {name, enabled, payload} and then adds feature_enabled.
		{"strategy payload", engine.Result{Name: "s", Found: true, Enabled: true, Variant: engine.Variant{Name: "green", Enabled: true, FeatureEnabled: true,
			FromStrategy: true, Payload: &clientapi.Payload{Type: "json", Value: `{"a":1}`}}},
			`{"name":"s","enabled":true,"variant":{"name":"green","enabled":true,"payload":{"type":"json","value":"{\"a\":1}"},"feature_enabled":true,"featureEnabled":true},"impressionData":false}`},
		{"strategy without payload", engine.Result{Name: "t", Found: true, Enabled: true, Variant: engine.Variant{Name: "green", Enabled: true, FeatureEnabled: true, FromStrategy: true}},
			`{"name":"t","enabled":true,"variant":{"name":"green","enabled":true,"feature_enabled":true,"featureEnabled":true},"impressionData":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(appendToggle(nil, &tc.r)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if tc.r.Variant.FromStrategy && tc.r.Variant.Payload != nil {
				return // clientapi.ToggleResult has the flag's order only
			}
			b, _ := json.Marshal(clientapi.ToggleResult{Name: tc.r.Name, Enabled: tc.r.Enabled,
				Variant: clientapi.VariantResult{Name: tc.r.Variant.Name, Enabled: tc.r.Variant.Enabled, Payload: tc.r.Variant.Payload,
					FeatureEnabled: tc.r.Variant.FeatureEnabled, FeatureEnabled2: tc.r.Variant.FeatureEnabled}})
			if string(b) != tc.want {
				t.Errorf("clientapi.ToggleResult encodes as %s", b)
			}
		})
	}
}
