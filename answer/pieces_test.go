package answer

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/fixture"
)

// piecesPayload has what the pieces must get right: names and payloads
// that need escaping, a duplicate flag (the later one counts), flag and
// strategy variants of the same name with different payloads, a variant
// called "disabled", variants without payloads or weights, a flag that is
// off and a child flag.
func piecesPayload() *clientapi.Features {
	str := func(v string) *clientapi.Payload { return &clientapi.Payload{Type: "string", Value: v} }
	variants := func(vs ...clientapi.Variant) []clientapi.Variant { return vs }
	users := func(ids string) clientapi.Strategy {
		return clientapi.Strategy{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": ids}}
	}
	return &clientapi.Features{Version: 2, Features: []clientapi.Feature{
		{Name: "plain", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}}},
		{Name: "quote \"name\" <ü> \u2028", Enabled: true, ImpressionData: true, Strategies: []clientapi.Strategy{{Name: "default"}},
			Variants: variants(
				clientapi.Variant{Name: "json \"x\"", Weight: 500, Payload: &clientapi.Payload{Type: "json", Value: `{"k":"v\n","n":[1,2]}`}},
				clientapi.Variant{Name: "none", Weight: 500})},
		{Name: "dup", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}},
			Variants: variants(clientapi.Variant{Name: "old", Weight: 1000, Payload: str("old")})},
		{Name: "same-name", Enabled: true, Strategies: []clientapi.Strategy{
			{Name: "userWithId", Parameters: clientapi.Parameters{"userIds": "u1,u2,u3"},
				Variants: variants(clientapi.Variant{Name: "blue", Weight: 1000, Payload: str("strategy")})},
			{Name: "flexibleRollout", Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default"}}},
			Variants: variants(clientapi.Variant{Name: "blue", Weight: 500, Payload: str("flag")},
				clientapi.Variant{Name: "disabled", Weight: 500, Payload: str("called disabled")})},
		{Name: "weightless", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}},
			Variants: variants(clientapi.Variant{Name: "zero", Weight: 0, Payload: str("never")})},
		{Name: "off", Enabled: false, Variants: variants(clientapi.Variant{Name: "v", Weight: 1, Payload: str("off")})},
		{Name: "half", Enabled: true, Strategies: []clientapi.Strategy{{Name: "flexibleRollout",
			Parameters: clientapi.Parameters{"rollout": "50", "stickiness": "default"}}}},
		{Name: "child", Enabled: true, Dependencies: []clientapi.Dependency{{Feature: "half"}}, Strategies: []clientapi.Strategy{users("u1,u4")}},
		{Name: "dup", Enabled: true, Strategies: []clientapi.Strategy{{Name: "default"}},
			Variants: variants(clientapi.Variant{Name: "new", Weight: 1000, Payload: str("new")})},
	}}
}

func pieceContexts(n int) []engine.Context {
	out := []engine.Context{{}}
	for i := range n {
		out = append(out, engine.Context{UserID: "u" + strconv.Itoa(i), SessionID: strconv.Itoa(i * 7)})
	}
	return out
}

// TestPiecesEncodeLikeTheGeneralForm: every toggle of every answer, all
// flags or enabled ones, is written from the pieces, byte for byte as the
// general encoder (checked against encoding/json in encode_test.go) writes
// it; and the enabled flags picked from all results, as they are
// evaluated, are the engine's EvaluateEnabled list, with the same
// stability.
func TestPiecesEncodeLikeTheGeneralForm(t *testing.T) {
	payloads := map[string]*clientapi.Features{"edge cases": piecesPayload(), "fixture": fixture.Features(300, 4)}
	for name, payload := range payloads {
		snap := engine.Compile(payload, engine.Options{Rand: func(int) int { return 0 }})
		p := newPieces(snap)
		contexts := pieceContexts(40)
		for i := range 6 {
			wc := fixture.Context(i)
			contexts = append(contexts, engine.ContextFromWire(&wc))
		}
		for ci := range contexts {
			all := snap.EvaluateAll(&contexts[ci], nil)
			enabled, volatile, window := snap.EvaluateEnabled(&contexts[ci], nil)
			// The Writer lists the enabled flags of all the results.
			only, _ := appendToggles(nil, all, p, true)
			if want, _ := appendToggles(nil, enabled, nil, false); string(only) != string(want) {
				t.Fatalf("%s, context %d: enabled flags of all results differ from EvaluateEnabled's:\n%s\n%s", name, ci, only, want)
			}
			// Encoding each result as the engine hands it over gives the
			// same answer, and the same stability, as from all results.
			enc := newTogglesEncoder(nil, p, true)
			snap.EvaluateEach(&contexts[ci], enc.add)
			if got, _ := enc.finish(); string(got) != string(only) {
				t.Fatalf("%s, context %d: answer encoded as evaluated differs:\n%s\n%s", name, ci, got, only)
			}
			if enc.volatile != volatile || enc.window != window {
				t.Fatalf("%s, context %d: stability while encoding %v %v, EvaluateEnabled's %v %v", name, ci, enc.volatile, enc.window, volatile, window)
			}
			for _, results := range [][]engine.Result{all, enabled} {
				for k := range results {
					r := &results[k]
					got, _, ok := p.appendToggle(nil, r)
					if want := appendToggle(nil, r); !ok || string(got) != string(want) {
						t.Fatalf("%s, context %d, %q: from pieces (%v) %s, want %s", name, ci, r.Name, ok, got, want)
					}
				}
				got, _ := appendToggles(nil, results, p, false)
				if want, _ := appendToggles(nil, results, nil, false); string(got) != string(want) {
					t.Fatalf("%s, context %d: answers differ:\n%s\n%s", name, ci, got, want)
				}
			}
		}
	}
}

// TestPiecesWriteEachVariantInItsOrder: a flag whose strategy and flag
// variants share a name is answered, from the pieces, with the strategy's
// variant in the strategy order and the flag's in the flag order.
func TestPiecesWriteEachVariantInItsOrder(t *testing.T) {
	snap := engine.Compile(piecesPayload(), engine.Options{Rand: func(int) int { return 0 }})
	p := newPieces(snap)
	want := map[string]string{
		"strategy": `"variant":{"name":"blue","enabled":true,"payload":{"type":"string","value":"strategy"},"feature_enabled":true`,
		"flag":     `"variant":{"name":"blue","payload":{"type":"string","value":"flag"},"enabled":true,"feature_enabled":true`,
	}
	seen := map[string]bool{}
	for _, ctx := range pieceContexts(60) {
		r := snap.Evaluate("same-name", &ctx)
		if r.Variant.Payload == nil || r.Variant.Name != "blue" {
			continue
		}
		got, _, ok := p.appendToggle(nil, &r)
		if !ok {
			t.Fatalf("%+v is not answered from the pieces", r)
		}
		from := r.Variant.Payload.Value
		seen[from] = true
		if !strings.Contains(string(got), want[from]) {
			t.Errorf("the %s's variant: %s, want %s", from, got, want[from])
		}
	}
	if !seen["strategy"] || !seen["flag"] {
		t.Errorf("not every kind of variant was answered: %v", seen)
	}
}

// TestPiecesLeaveUnknownResultsToTheGeneralForm: a result the pieces do
// not know (a flag of no configuration, as a toggles list may name, a
// variant they do not list, or a pairing of flag and variant no evaluation
// gives) is encoded in full, and the answer then gets the tag of its bytes.
func TestPiecesLeaveUnknownResultsToTheGeneralForm(t *testing.T) {
	payload := piecesPayload()
	snap := engine.Compile(payload, engine.Options{})
	p := newPieces(snap)
	plain := snap.Evaluate("plain", &engine.Context{})
	foreign := plain
	foreign.Variant = engine.Variant{Name: "not listed", Enabled: true, FeatureEnabled: true}
	mismatched := plain
	mismatched.Variant = engine.Variant{Name: engine.DisabledVariant} // an off flag's
	for _, r := range []engine.Result{snap.Evaluate("ghost", &engine.Context{}), foreign, mismatched, {Name: "plain", Index: 99}} {
		if _, _, ok := p.appendToggle(nil, &r); ok {
			t.Errorf("%+v: written from pieces", r)
		}
		body, etag := appendToggles(nil, []engine.Result{plain, r}, p, false)
		if want, _ := appendToggles(nil, []engine.Result{plain, r}, nil, false); string(body) != string(want) || etag != weakETag(body) {
			t.Errorf("%+v: %s with tag %s; want %s with %s", r, body, etag, want, weakETag(body))
		}
	}
}

// TestAnswerTagIsExact serves many contexts from one Writer and checks
// that a tag always stands for the same bytes and the same bytes always
// get the same tag (so 304 answers are exact), in the weak shape
// W/"<length in hex>-<16 hex digits>"; and that If-None-Match with the tag
// is answered 304.
func TestAnswerTagIsExact(t *testing.T) {
	payload := fixture.Features(120, 2)
	payload.Features = append(payload.Features, piecesPayload().Features...)
	snap := engine.Compile(payload, engine.Options{})
	w := New(snap, 0)
	shape := regexp.MustCompile(`^W/"([0-9a-f]+)-[0-9a-f]{16}"$`)
	bodyOf, tagOf := map[string]string{}, map[string]string{}
	for _, all := range []bool{false, true} {
		for i, ctx := range pieceContexts(300) {
			req := httptest.NewRequest("GET", "/", nil)
			rec := httptest.NewRecorder()
			w.Write(rec, req, &ctx, nil, all, false)
			body, tag := rec.Body.String(), rec.Header().Get("ETag")
			m := shape.FindStringSubmatch(tag)
			if m == nil || m[1] != strconv.FormatInt(int64(len(body)), 16) {
				t.Fatalf("tag %q for a body of %d bytes", tag, len(body))
			}
			if b, ok := bodyOf[tag]; ok && b != body {
				t.Fatalf("tag %s stands for two bodies:\n%s\n%s", tag, b, body)
			}
			if old, ok := tagOf[body]; ok && old != tag {
				t.Fatalf("one body, two tags: %s and %s", old, tag)
			}
			bodyOf[tag], tagOf[body] = body, tag
			if i%50 == 1 { // not the empty context, whose rollouts are random draws
				req.Header.Set("If-None-Match", tag)
				again := httptest.NewRecorder()
				w.Write(again, req, &ctx, nil, all, false)
				if again.Code != http.StatusNotModified {
					t.Errorf("If-None-Match with the answer's own tag: %d, want 304", again.Code)
				}
			}
		}
	}
	if len(bodyOf) < 50 {
		t.Fatalf("only %d distinct answers: the contexts do not exercise the tag", len(bodyOf))
	}
}

// TestAnswerTagIsStable: the tag depends on the answer alone. Two Writers
// of one configuration (two processes, or one restarted) tag the same
// answer alike, and so does a configuration changed only where this
// answer does not look (a flag that stays off gains a strategy, a flag is
// added that is off), so a client's 304 survives them; a change to what
// the answer says changes the tag.
func TestAnswerTagIsStable(t *testing.T) {
	ctx := &engine.Context{UserID: "u1"}
	tagOf := func(payload *clientapi.Features) (string, string) {
		snap := engine.Compile(payload, engine.Options{})
		return appendTogglesTag(snap.EvaluateAll(ctx, nil), newPieces(snap))
	}
	base := piecesPayload()
	body, tag := tagOf(base)

	unseen := piecesPayload()
	for i := range unseen.Features {
		if unseen.Features[i].Name == "off" {
			unseen.Features[i].Strategies = []clientapi.Strategy{{Name: "default"}}
		}
	}
	unseen.Features = append(unseen.Features, clientapi.Feature{Name: "new-and-off", Enabled: false})

	seen := piecesPayload()
	seen.Features[0].ImpressionData = true // "plain" now reports impressions

	tests := []struct {
		name    string
		payload *clientapi.Features
		same    bool
	}{
		{"the same configuration again", piecesPayload(), true},
		{"a change the answer does not show", unseen, true},
		{"a change the answer shows", seen, false},
	}
	for _, tt := range tests {
		b, tg := tagOf(tt.payload)
		if (b == body) != tt.same || (tg == tag) != tt.same {
			t.Errorf("%s: same body %v, same tag %v; want both %v", tt.name, b == body, tg == tag, tt.same)
		}
	}
}

// appendTogglesTag is the enabled toggles' body and tag.
func appendTogglesTag(results []engine.Result, p *pieces) (string, string) {
	b, tag := appendToggles(nil, results, p, true)
	return string(b), tag
}

// TestTaggerHashesEveryCode: a change to any one code changes the tag.
func TestTaggerHashesEveryCode(t *testing.T) {
	sum := func(change int) string {
		var tg tagger
		for i := range 1000 {
			code := uint64(i)
			if i == change {
				code++
			}
			tg.add(code)
		}
		return tg.etag(1)
	}
	base := sum(-1)
	for _, at := range []int{0, 127, 128, 129, 500, 999} {
		if sum(at) == base {
			t.Errorf("changing code %d leaves the tag %s", at, base)
		}
	}
}
