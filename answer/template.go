package answer

import (
	"slices"
	"unsafe"

	"github.com/signalbox/signalbox/engine"
)

// A template is the part of a whole answer that is the same for every
// user of one context: the toggles of the flags whose answers did not read
// the fields that tell users apart (userId, sessionId, remoteAddress; see
// engine.Result.PerUser), already encoded, and the positions of the flags
// that did, which are evaluated for each request. Many users polling with
// the same application, environment and properties then share the
// template, and a new user costs the evaluation of those flags alone.
//
// Exactness: a flag goes into the blocks only when its answer read none of
// the three fields and drew nothing at random (engine.Result.Volatile), so
// it is the answer for every context that differs in those fields alone;
// the template is kept only for the span of clock readings in which all of
// them hold (their windows), like an answer. The answer built from it has
// the same bytes and ETag as one evaluated whole (TestTemplateAnswers).
type template struct {
	eval   []int32 // flags evaluated per request, ascending
	blocks []block // in answer order
	text   []byte  // the blocks' toggles
	codes  []uint64
	window engine.Window
}

// block is a run of toggles that goes after the first before flags of
// eval and ahead of the rest: their bytes, joined by commas, and their tag
// codes.
type block struct {
	before             int
	from, to           int // in text
	codesFrom, codesTo int // in codes
}

// size is what t holds, for the cache's bound.
func (t *template) size() int64 {
	return int64(len(t.text) + 8*len(t.codes) + 4*len(t.eval) + int(unsafe.Sizeof(block{}))*len(t.blocks))
}

// templateBuilder records a template while a whole answer is encoded.
type templateBuilder struct {
	t      template
	failed bool
}

// note records r, whose toggle the encoder wrote as toggle (nil when it
// listed nothing for it) with the given code.
func (tb *templateBuilder) note(r *engine.Result, toggle []byte, code uint64) {
	if r.Index < 0 {
		tb.failed = true
		return
	}
	if r.PerUser || r.Volatile {
		tb.t.eval = append(tb.t.eval, r.Index)
		return
	}
	tb.t.window = tb.t.window.Intersect(r.Window)
	if toggle == nil {
		return
	}
	// The last block takes the toggle unless a flag was evaluated since.
	if last := len(tb.t.blocks) - 1; last >= 0 && tb.t.blocks[last].before == len(tb.t.eval) {
		tb.t.text = append(tb.t.text, ',')
	} else {
		n := len(tb.t.text)
		tb.t.blocks = append(tb.t.blocks, block{before: len(tb.t.eval), from: n, to: n, codesFrom: len(tb.t.codes), codesTo: len(tb.t.codes)})
	}
	b := &tb.t.blocks[len(tb.t.blocks)-1]
	tb.t.text = append(tb.t.text, toggle...)
	tb.t.codes = append(tb.t.codes, code)
	b.to, b.codesTo = len(tb.t.text), len(tb.t.codes)
}

// template returns the recorded template, nil when it cannot be used.
func (tb *templateBuilder) template() *template {
	if tb.failed {
		return nil
	}
	// Copies of the exact size: the cache counts what a template holds.
	return &template{eval: slices.Clone(tb.t.eval), blocks: slices.Clone(tb.t.blocks), text: slices.Clone(tb.t.text),
		codes: slices.Clone(tb.t.codes), window: tb.t.window}
}

// replay encodes the answer for ctx into enc: the blocks, and the flags
// evaluated for this request between them. snap is the snapshot the
// template was recorded from, so EvaluateSome yields one result for every
// position of eval.
func (t *template) replay(enc *togglesEncoder, snap *engine.Snapshot, ctx *engine.Context) {
	enc.window = enc.window.Intersect(t.window)
	next, evaluated := 0, 0
	flush := func() {
		for next < len(t.blocks) && t.blocks[next].before <= evaluated {
			enc.addBlock(t, &t.blocks[next])
			next++
		}
	}
	snap.EvaluateSome(ctx, t.eval, func(r *engine.Result) {
		flush()
		enc.add(r)
		evaluated++
	})
	flush() // the blocks after the last evaluated flag
}
