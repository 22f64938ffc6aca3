package answer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/engine"
)

// referenceLookup decodes a lookup body the slow, obvious way with
// encoding/json maps; the scanner must agree with it.
// kind is the first byte of a JSON value, 'n' for null, 0 when absent.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

func referenceLookup(body []byte) (ctx engine.Context, toggles []string, errPath string, ok bool) {
	var top struct {
		Context json.RawMessage `json:"context"`
		Toggles json.RawMessage `json:"toggles"`
	}
	if json.Unmarshal(body, &top) != nil {
		return ctx, nil, "", false
	}
	var b contextBuilder
	text := func(raw json.RawMessage) (string, bool, bool) {
		switch kind(raw) {
		case 'n':
			return "", false, true
		case '{', '[':
			return "", false, false
		case '"':
			var s string
			_ = json.Unmarshal(raw, &s)
			return s, true, true
		}
		return string(bytes.TrimSpace(raw)), true, true
	}
	switch kind(top.Context) {
	case 0, 'n':
	case '{':
		var m map[string]json.RawMessage
		_ = json.Unmarshal(top.Context, &m)
		for k, v := range m {
			if k == "properties" {
				switch kind(v) {
				case 'n':
				case '{':
					var p map[string]json.RawMessage
					_ = json.Unmarshal(v, &p)
					for pk, pv := range p {
						if s, ok, _ := text(pv); ok {
							b.setProperty(pk, s)
						}
					}
				default:
					return ctx, nil, ".body.context.properties", true
				}
				continue
			}
			s, ok, scalar := text(v)
			if !scalar && isKnownField(k) {
				return ctx, nil, ".body.context." + k, true
			}
			if ok {
				b.setField(k, s)
			}
		}
	default:
		return ctx, nil, ".body.context", true
	}
	switch kind(top.Toggles) {
	case 0, 'n':
	case '[':
		if json.Unmarshal(top.Toggles, &toggles) != nil {
			return ctx, nil, ".body.toggles", true
		}
	default:
		return ctx, nil, ".body.toggles", true
	}
	return b.context(), toggles, "", true
}

// hasDuplicateKeys reports whether any object in body repeats a key, where
// map-based decoding and in-order scanning legitimately differ.
func hasDuplicateKeys(body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		obj    bool
		keys   map[string]bool
		expect bool // next string token in an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.obj {
					top.expect = true
				}
				stack = append(stack, &frame{obj: v == '{', keys: map[string]bool{}, expect: v == '{'})
				continue
			default:
				stack = stack[:len(stack)-1]
				continue
			}
		case string:
			if top != nil && top.obj && top.expect {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.expect = false
				continue
			}
		}
		if top != nil && top.obj {
			top.expect = true
		}
	}
}

func FuzzLookupScanner(f *testing.F) {
	for _, s := range []string{
		`{"context":{"userId":"a","properties":{"x":"y","n":1.5e3,"b":false,"z":null,"o":{"deep":[1,{"a":"}"}]}},"extra":[1,"]"]},"toggles":["a","b\u00e9","c\"d"]}`,
		`{"context":null,"toggles":null}`, `{"context":"x"}`, `{"toggles":[1]}`, `{"toggles":{}}`,
		`{"context":{"properties":[]}}`, `{"context":{"appName":{"a":1}}}`, `{"context":{"sessionId":12,"currentTime":"2026-01-01"}}`,
		"{\"context\":{\"userId\":\"\xff\"}}", ` { "context" : { "a" : "b" } , "toggles" : [ ] } `, `{"context":{"a":"\ud800"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got Lookup
		if err := json.Unmarshal(body, &got); err != nil {
			// Only bodies that are not objects fail here: the members
			// never return errors.
			if _, _, _, ok := referenceLookup(body); ok && kind(body) == '{' {
				t.Fatalf("scanner refused %q: %v", body, err)
			}
			return
		}
		if hasDuplicateKeys(body) {
			return
		}
		wantCtx, wantToggles, wantErr, ok := referenceLookup(body)
		if !ok {
			return
		}
		ctx, toggles, rerr := got.Parse()
		gotErr := ""
		if rerr != nil {
			gotErr = rerr.DataPath
		}
		if (gotErr == "") != (wantErr == "") {
			t.Fatalf("%q: error %q, reference %q", body, gotErr, wantErr)
		}
		if gotErr != "" {
			return
		}
		if diff := cmp.Diff(wantCtx, ctx); diff != "" {
			t.Fatalf("%q: context (-reference +scanner):\n%s", body, diff)
		}
		if len(wantToggles) == 0 {
			wantToggles = nil
		}
		if diff := cmp.Diff(wantToggles, toggles); diff != "" {
			t.Fatalf("%q: toggles (-reference +scanner):\n%s", body, diff)
		}
	})
}
