package answer

import (
	"slices"
	"unsafe"

	"github.com/signalbox/signalbox/engine"
)

// A template is the part of a whole answer that is the same for every
// user of one context: the toggles of the flags whose answers did not read
// the fields that tell users apart (userId, sessionId, remoteAddress; see
// engine.Result.PerUser), already encoded, and a plan of the flags that
// did (engine.Plan), which are evaluated for each request. Many users
// polling with the same application, environment and properties then share
// the template, and a new user costs the evaluation of those flags alone.
//
// Exactness: a flag goes into the blocks only when its answer read none of
// the three fields and drew nothing at random (engine.Result.Volatile), so
// it is the answer for every context that differs in those fields alone;
// the template is kept only for the span of clock readings in which all of
// them hold (their windows), like an answer. The answer built from it has
// the same bytes and ETag as one evaluated whole (TestTemplateAnswers).
type template struct {
	plan   *engine.Plan // evaluates the flags in between for each user
	blocks []block      // in answer order
	text   []byte       // the blocks' toggles
	window engine.Window
}

// block is a run of toggles that goes after the first before flags the
// plan evaluates and ahead of the rest: their bytes, joined by commas, and
// what their codes add to the answer's tag (see tagger).
type block struct {
	before   int
	from, to int // in text
	tag      uint64
}

// size is what t holds, for the cache's bound.
func (t *template) size() int64 {
	return int64(len(t.text)+int(unsafe.Sizeof(block{}))*len(t.blocks)) + t.plan.Size()
}

// templateBuilder records a template while a whole answer is encoded.
type templateBuilder struct {
	t      template
	eval   []int32 // flags evaluated per request, ascending
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
		tb.eval = append(tb.eval, r.Index)
		return
	}
	tb.t.window = tb.t.window.Intersect(r.Window)
	if toggle == nil {
		return
	}
	// The last block takes the toggle unless a flag was evaluated since.
	if last := len(tb.t.blocks) - 1; last >= 0 && tb.t.blocks[last].before == len(tb.eval) {
		tb.t.text = append(tb.t.text, ',')
	} else {
		n := len(tb.t.text)
		tb.t.blocks = append(tb.t.blocks, block{before: len(tb.eval), from: n, to: n})
	}
	b := &tb.t.blocks[len(tb.t.blocks)-1]
	tb.t.text = append(tb.t.text, toggle...)
	b.to = len(tb.t.text)
	b.tag += mixCode(code)
}

// template returns the recorded template, nil when it cannot be used. snap
// and ctx are those the answer was evaluated from.
func (tb *templateBuilder) template(snap *engine.Snapshot, ctx *engine.Context) *template {
	if tb.failed {
		return nil
	}
	// Copies of the exact size: the cache counts what a template holds.
	return &template{plan: snap.Plan(ctx, tb.eval), blocks: slices.Clone(tb.t.blocks), text: slices.Clone(tb.t.text), window: tb.t.window}
}

// replay encodes the answer for ctx, one of the template's users, into
// enc: the blocks, and the flags evaluated for this request between them.
func (t *template) replay(enc *togglesEncoder, ctx *engine.Context) {
	enc.window = enc.window.Intersect(t.window)
	next, evaluated := 0, 0
	flush := func() {
		for next < len(t.blocks) && t.blocks[next].before <= evaluated {
			enc.addBlock(t, &t.blocks[next])
			next++
		}
	}
	t.plan.Evaluate(ctx, func(r *engine.Result) {
		flush()
		enc.add(r)
		evaluated++
	})
	flush() // the blocks after the last evaluated flag
}
