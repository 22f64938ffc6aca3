package answer

import (
	"hash/fnv"
	"math/bits"
	"strconv"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// pieces are a configuration's constant JSON, encoded once when its Writer
// is built: per flag the opening `{"name":"…","enabled":` and the whole
// variant object of every variant the flag can answer with, payload
// included. Encoding a toggle is then a few copies: escaping names and
// payloads on every request was a fifth of a new-context answer at 5,000
// flags.
//
// The pieces also give answers a cheap ETag (see tagger): a toggle's bytes
// are its opening piece, its variant piece and two bits, so a hash of the
// pieces' own hashes, made once, stands for the body as its bytes would.
// The pieces' hashes depend on their bytes alone, so the same answer gets
// the same tag from every process and across configurations that leave it
// unchanged, and a client's 304 survives a restart, a change elsewhere or
// another instance behind the same balancer.
type pieces struct {
	flags []flagPieces // by engine.Result.Index
	// text holds every piece: the two constant middles, then each flag's
	// opening and its variants, each preceded by enabledTrue (see span).
	text string
}

type flagPieces struct {
	name     string // the flag's name, to check that a result is this flag's
	open     span   // {"name":"…","enabled":
	openHash uint64 // pieceHash of open
	variants []variantPiece
}

// variantPiece is one variant a flag can pick, as the engine reports it.
type variantPiece struct {
	name     string
	payload  *clientapi.Payload
	strategy bool // a strategy's variant, not the flag's (engine.Variant.FromStrategy)
	// middle is enabledTrue and the variant object (see appendVariant):
	// {"name":"…","payload":{…},"enabled":true,"feature_enabled":true,"featureEnabled":true}
	middle span
	hash   uint64 // pieceHash of the variant object
}

// A span is a run of the pieces' text: smaller to keep than a string.
type span struct {
	at int32
	n  int32
}

// The constant middles' spans: they open the pieces' text.
var (
	spanOnNoneLeft = span{0, int32(len(onNoneLeft))}
	spanOff        = span{int32(len(onNoneLeft)), int32(len(enabledFalse + variantOff))}
)

func (p *pieces) spanText(s span) string { return p.text[s.at : s.at+s.n] }

// The variant objects of the "disabled" fallback, and the toggle's ends.
const (
	variantOff        = `{"name":"disabled","enabled":false,"feature_enabled":false,"featureEnabled":false}`
	variantOnNoneLeft = `{"name":"disabled","enabled":false,"feature_enabled":true,"featureEnabled":true}`
	enabledTrue       = `true,"variant":`
	// onNoneLeft is the commonest middle: on, without a variant.
	onNoneLeft        = enabledTrue + variantOnNoneLeft
	enabledFalse      = `false,"variant":`
	closeImpression   = `,"impressionData":true}`
	closeNoImpression = `,"impressionData":false}`
)

// The hashes of the two fallback variant pieces.
var (
	hashVariantOff        = pieceHash(variantOff)
	hashVariantOnNoneLeft = pieceHash(variantOnNoneLeft)
)

// newPieces encodes the flags of snap, with the variants it can answer
// with (Snapshot.Variants), whose payload pointers the results carry.
func newPieces(snap *engine.Snapshot) *pieces {
	p := &pieces{}
	names := snap.Names()
	p.flags = make([]flagPieces, len(names))
	// All pieces share one allocation, in flag order: encoding walks the
	// flags in that order too.
	arena := []byte(onNoneLeft + enabledFalse + variantOff)
	spanFrom := func(from int) span { return span{int32(from), int32(len(arena) - from)} }
	for i, name := range names {
		f := &p.flags[i]
		f.name = name
		from := len(arena)
		arena = append(arena, `{"name":`...)
		arena = appendString(arena, name)
		arena = append(arena, `,"enabled":`...)
		f.open = spanFrom(from)
		for v := range snap.Variants(i) {
			if variantIndex(f.variants, &v) >= 0 {
				continue
			}
			from := len(arena)
			arena = append(arena, enabledTrue...)
			arena = appendVariant(arena, v.Name, v.Payload, v.FromStrategy)
			f.variants = append(f.variants, variantPiece{name: v.Name, payload: v.Payload, strategy: v.FromStrategy, middle: spanFrom(from)})
		}
	}
	p.text = string(arena)
	for i := range p.flags {
		f := &p.flags[i]
		f.openHash = pieceHash(p.spanText(f.open))
		for j := range f.variants {
			v := &f.variants[j]
			v.hash = pieceHash(p.spanText(v.middle)[len(enabledTrue):])
		}
	}
	return p
}

// variantIndex is the index in vs of the piece of v (its name, payload
// and origin), -1 for none.
func variantIndex(vs []variantPiece, v *engine.Variant) int {
	for k := range vs {
		if vs[k].payload == v.Payload && vs[k].strategy == v.FromStrategy && vs[k].name == v.Name {
			return k
		}
	}
	return -1
}

// appendVariant appends the variant object of a picked variant, its
// members in the reference's order: name, payload, enabled,
// feature_enabled, featureEnabled for the flag's variants, and name,
// enabled, payload, feature_enabled, featureEnabled for a strategy's.
func appendVariant(b []byte, name string, pl *clientapi.Payload, fromStrategy bool) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, name)
	if fromStrategy {
		b = append(b, `,"enabled":true`...)
		if pl != nil {
			b = appendPayload(b, pl)
		}
		return append(b, `,"feature_enabled":true,"featureEnabled":true}`...)
	}
	if pl != nil {
		b = appendPayload(b, pl)
	}
	return append(b, `,"enabled":true,"feature_enabled":true,"featureEnabled":true}`...)
}

// appendToggles appends {"toggles":[...]} for results, only those
// enabled when onlyEnabled, and returns the answer's ETag (see
// togglesEncoder).
func appendToggles(b []byte, results []engine.Result, p *pieces, onlyEnabled bool) ([]byte, string) {
	enc := newTogglesEncoder(b, p, onlyEnabled)
	for i := range results {
		enc.add(&results[i])
	}
	return enc.finish()
}

// togglesEncoder appends a {"toggles":[...]} answer one result at a time,
// as the engine hands them over (engine.Snapshot.EvaluateEach), and notes
// whether the answer may be kept (volatile, window). Toggles are encoded
// from the pieces (p may be nil); the tag is the pieces' hash when every
// toggle had pieces, else weakETag of the bytes. (Leaving out the disabled
// flags here, rather than with engine's EvaluateEnabled, saves copying the
// results of the enabled ones.)
type togglesEncoder struct {
	b           []byte
	start       int
	p           *pieces
	onlyEnabled bool
	exact       bool
	first       bool
	t           tagger
	// volatile and window are those of every result added, listed or not.
	volatile bool
	window   engine.Window
	// rec, when set, records the answer's template as it is encoded.
	rec *templateBuilder
}

func newTogglesEncoder(b []byte, p *pieces, onlyEnabled bool) togglesEncoder {
	start := len(b)
	return togglesEncoder{b: append(b, `{"toggles":[`...), start: start, p: p, onlyEnabled: onlyEnabled, exact: p != nil, first: true}
}

// add encodes r unless it is disabled and only enabled ones are listed.
func (e *togglesEncoder) add(r *engine.Result) {
	if !e.listed(r) {
		if e.rec != nil {
			e.rec.note(r, nil, 0)
		}
		return
	}
	if !e.first {
		e.b = append(e.b, ',')
	}
	e.first = false
	start := len(e.b)
	var code uint64
	var ok bool
	e.b, code, ok = e.appendResult(e.b, r)
	switch {
	case !ok:
		if e.rec != nil {
			e.rec.failed = true // a template holds toggles from pieces only
		}
	case e.rec != nil:
		e.rec.note(r, e.b[start:], code)
	}
}

// addApart is add for a toggle that is copied into the answer later: it
// appends the toggle, after a comma, to apart instead (its code goes to
// the tag now), and returns that and the toggle's run in it (empty when
// the toggle is left out).
func (e *togglesEncoder) addApart(apart []byte, r *engine.Result) ([]byte, textRun) {
	if !e.listed(r) {
		return apart, textRun{}
	}
	from := int32(len(apart))
	apart, _, _ = e.appendResult(append(apart, ','), r)
	return apart, textRun{from: from, to: int32(len(apart))}
}

// listed notes what r read of the clock and of chance, and reports
// whether the answer lists it.
func (e *togglesEncoder) listed(r *engine.Result) bool {
	e.volatile = e.volatile || r.Volatile
	e.window = e.window.Intersect(r.Window)
	return !e.onlyEnabled || r.Enabled
}

// appendResult appends r's toggle to b, from the pieces while every toggle
// so far had them (adding its code to the tag; ok), else with the general
// encoder, after which the answer's tag is a hash of its bytes.
func (e *togglesEncoder) appendResult(b []byte, r *engine.Result) (_ []byte, code uint64, ok bool) {
	if e.exact {
		if b, code, ok := e.p.appendToggle(b, r); ok {
			e.t.add(code)
			return b, code, true
		}
		e.exact = false
	}
	return appendToggle(b, r), 0, false
}

// addRun adds a run of a template's toggles, each after a comma, whose
// codes' mixed values sum to tag.
func (e *togglesEncoder) addRun(run []byte, tag uint64) {
	if len(run) == 0 {
		return
	}
	if e.first {
		run, e.first = run[1:], false
	}
	e.b = append(e.b, run...)
	e.t.addSum(tag)
}

// finish closes the answer and returns it with its ETag.
func (e *togglesEncoder) finish() ([]byte, string) {
	e.b = append(e.b, "]}"...)
	if !e.exact {
		return e.b, weakETag(e.b[e.start:])
	}
	return e.b, e.t.etag(len(e.b) - e.start)
}

// appendToggle appends r from the pieces, and returns the toggle's code
// for the tag; ok is false when r has no pieces (see toggleSpans) and
// nothing was appended.
func (p *pieces) appendToggle(b []byte, r *engine.Result) (_ []byte, code uint64, ok bool) {
	open, middle, code, ok := p.toggleSpans(r)
	if !ok {
		return b, 0, false
	}
	b = append(b, p.spanText(open)...)
	b = append(b, p.spanText(middle)...)
	if r.ImpressionData {
		return append(b, closeImpression...), code, true
	}
	return append(b, closeNoImpression...), code, true
}

// toggleSpans finds r's toggle in the pieces: the spans of its opening and
// of its middle (the rest is the closing of its impressionData) and its
// code. ok is false for a result without pieces: a flag unknown to the
// configuration, a variant it does not list, or a pairing no evaluation
// gives (a flag on with the variant of one off, or off with any other);
// the general encoder writes those.
func (p *pieces) toggleSpans(r *engine.Result) (open, middle span, code uint64, ok bool) {
	i := int(r.Index)
	if i < 0 || i >= len(p.flags) || p.flags[i].name != r.Name {
		return span{}, span{}, 0, false
	}
	f := &p.flags[i]
	v := &r.Variant
	var vhash uint64
	switch {
	case !v.Enabled && (v.Name != engine.DisabledVariant || v.Payload != nil):
		return span{}, span{}, 0, false
	case !v.Enabled && r.Enabled && v.FeatureEnabled:
		middle, vhash = spanOnNoneLeft, hashVariantOnNoneLeft
	case !v.Enabled && !r.Enabled && !v.FeatureEnabled:
		middle, vhash = spanOff, hashVariantOff
	case v.Enabled && r.Enabled && v.FeatureEnabled:
		k := variantIndex(f.variants, v)
		if k < 0 {
			return span{}, span{}, 0, false
		}
		middle, vhash = f.variants[k].middle, f.variants[k].hash
	default:
		return span{}, span{}, 0, false
	}
	return f.open, middle, f.code(vhash, r), true
}

// code is what decides the bytes of r's toggle, whose variant piece has
// hash vhash: the opening piece, the variant piece and two bits.
func (f *flagPieces) code(vhash uint64, r *engine.Result) uint64 {
	return f.openHash ^ bits.RotateLeft64(vhash, 23) ^ (b2u(r.Enabled)<<1 | b2u(r.ImpressionData))
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// tagger hashes the codes of an answer's toggles without reading the
// body's bytes (hashing 230 KB twice with CRC-32 cost more than the rest of
// writing it). It is a 64-bit hash, not a keyed or cryptographic one: a
// client that made two of its own answers share a tag would only be sent a
// 304 for the wrong one of its own answers.
//
// The tag is a sum of the codes, each mixed, so that a run of toggles that
// is the same in many answers adds its sum at once (see template). It does
// not see the toggles' order, which in an answer is the configuration's and
// tells no two answers apart that list the same toggles.
type tagger struct {
	h uint64
}

// Multipliers of the mixing steps (from SplitMix64).
const (
	mixA = 0xbf58476d1ce4e5b9
	mixB = 0x94d049bb133111eb
)

func (t *tagger) add(code uint64) { t.h += mixCode(code) }

// addSum adds codes whose mixCode values sum to sum.
func (t *tagger) addSum(sum uint64) { t.h += sum }

// mixCode is SplitMix64's finalizer: every bit of code moves about half of
// the result's.
func mixCode(code uint64) uint64 {
	code = (code ^ code>>30) * mixA
	code = (code ^ code>>27) * mixB
	return code ^ code>>31
}

// etag is W/"<length>-<hash>", the shape of weakETag, for a body of n bytes.
func (t *tagger) etag(n int) string {
	h := t.h ^ t.h>>29
	var tmp [48]byte
	b := append(tmp[:0], `W/"`...)
	b = strconv.AppendUint(b, uint64(n), 16)
	b = append(b, '-')
	b = appendHex64(b, h)
	b = append(b, '"')
	return string(b)
}

func appendHex64(b []byte, v uint64) []byte {
	return appendHex32(appendHex32(b, uint32(v>>32)), uint32(v))
}

// pieceHash is the 64-bit FNV-1a hash of a piece's bytes.
func pieceHash(piece string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(piece))
	return h.Sum64()
}
