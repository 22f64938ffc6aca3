package answer

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzAppendString checks the hand-written JSON string encoder against
// encoding/json: both must decode to the same string.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " back \ slash`, "ctl \x00\x01\x1f\t\n\r", "<html>&amp;", "\u2028\u2029", "\xff\xfe bad", "ünïcödé 😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := appendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("appendString(%q) = %s: not JSON: %v", s, got, err)
		}
		want, _ := json.Marshal(s)
		var wantBack string
		_ = json.Unmarshal(want, &wantBack)
		if back != wantBack {
			t.Fatalf("appendString(%q) decodes to %q, encoding/json to %q", s, back, wantBack)
		}
		if !utf8.Valid(got) {
			t.Fatalf("appendString(%q) is not UTF-8", s)
		}
	})
}
