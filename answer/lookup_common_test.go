package answer

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeCommonTakes pins which bodies take the fast path: those that
// SDKs send must, or the path is dead code; the others must be left to
// encoding/json.
func TestDecodeCommonTakes(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{"context":{"appName":"web","userId":"u-1","sessionId":"s","properties":{"region":"eu","beta":null}}}`, true},
		{` { "context" : { "userId" : "a" } , "toggles" : [ "x" , "y" ] } `, true},
		{`{"toggles":["a"],"context":{"properties":{"deep":{"list":[true,false,null,{}]}}}}`, true},
		{`{}`, true},
		{`{"context":null,"toggles":null}`, true},
		{`{"context":"x"}`, true}, // a shape error, reported by Parse as on the slow path
		{`{"context":{"userId":"café ✓"}}`, true},
		{`{"context":{"age":30}}`, false},        // numbers: encoding/json
		{`{"context":{"userId":"a\"b"}}`, false}, // escapes
		{`{"Context":{"userId":"a"}}`, false},    // matched in any case by encoding/json
		{`{"context":{},"context":{}}`, false},   // repeated
		{`{"extra":1,"context":{}}`, false},
		{`{"context":{"userId":"a"}} x`, false},
		{`{"context":{"userId":"a"},}`, false},
		{`{"context":{"userId":"a` + "\x01" + `"}}`, false},
		{`[]`, false},
		{`null`, false},
		{``, false},
	}
	for _, tt := range tests {
		var l Lookup
		if got := l.DecodeCommon([]byte(tt.body)); got != tt.want {
			t.Errorf("DecodeCommon(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

// FuzzLookupCommon: a body the fast path takes is valid JSON and gives the
// lookup encoding/json gives; a body it refuses leaves the lookup as it was.
func FuzzLookupCommon(f *testing.F) {
	for _, s := range []string{
		`{"context":{"appName":"web","userId":"u-1","properties":{"region":"eu","x":null}},"toggles":["a","b"]}`,
		`{"context":{"properties":{"o":{"deep":[true,{"a":"}"}]}}}}`, `{"context":null,"toggles":null}`, `{"context":"x"}`,
		`{"toggles":[1]}`, `{"toggles":{}}`, `{"context":{"properties":[]}}`, `{"context":{"appName":{"a":"b"}}}`,
		"{\"context\":{\"userId\":\"\xff\"}}", `{"context":{"currentTime":"2026-01-01T00:00:00Z"}}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var fast Lookup
		if !fast.DecodeCommon(body) {
			if diff := cmp.Diff(Lookup{}, fast, cmp.AllowUnexported(Lookup{}, jsonContext{}, jsonToggles{}, contextBuilder{})); diff != "" {
				t.Fatalf("%q: refused, but the lookup changed:\n%s", body, diff)
			}
			return
		}
		var ref Lookup
		if err := json.Unmarshal(body, &ref); err != nil {
			t.Fatalf("%q: taken, but encoding/json refuses it: %v", body, err)
		}
		ctx, toggles, ferr := fast.Parse()
		wantCtx, wantToggles, wantErr := ref.Parse()
		if diff := cmp.Diff(wantErr, ferr); diff != "" {
			t.Fatalf("%q: error (-encoding/json +fast):\n%s", body, diff)
		}
		if diff := cmp.Diff(wantCtx, ctx); diff != "" {
			t.Fatalf("%q: context (-encoding/json +fast):\n%s", body, diff)
		}
		if diff := cmp.Diff(wantToggles, toggles); diff != "" {
			t.Fatalf("%q: toggles (-encoding/json +fast):\n%s", body, diff)
		}
	})
}
