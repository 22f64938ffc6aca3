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
	// text holds the blocks' toggles and then the outcomes', each toggle
	// after a comma: a run is copied whole, its comma left off when it
	// opens the answer.
	text   []byte
	window engine.Window
	// outcomes are the plan's outcomes (engine.Plan.Outcome) as encoded,
	// by index: a flag the plan answers from its checks adds its
	// outcome's toggle without being encoded again. quiet marks those
	// that add nothing (left out of the answer), which the plan does not
	// hand over.
	outcomes []encodedOutcome
	quiet    []bool
}

// encodedOutcome is one outcome as the answer lists it: its toggle's run
// in the template's text, after the blocks', and what its code adds to
// the tag. Outcomes follow the plan's flags, so a user's answer reads the
// text of outcomes, as that of blocks, front to back. Without pieces for
// it (from == to) the result is encoded as any other.
type encodedOutcome struct {
	tag      uint64
	from, to int32
}

// block is a run of toggles that goes after the first before flags the
// plan evaluates and ahead of the rest: their bytes in text, each after
// a comma, and what their codes add to the answer's tag (see tagger).
type block struct {
	before   int
	from, to int // in text
	tag      uint64
}

// run is bl's toggles and what they add to the tag.
func (t *template) run(bl *block) ([]byte, uint64) { return t.text[bl.from:bl.to], bl.tag }

// size is what t holds, for the cache's bound.
func (t *template) size() int64 {
	return int64(len(t.text)+int(unsafe.Sizeof(block{}))*len(t.blocks)+(int(unsafe.Sizeof(encodedOutcome{}))+1)*len(t.outcomes)) +
		t.plan.Size()
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
	if last := len(tb.t.blocks) - 1; last < 0 || tb.t.blocks[last].before != len(tb.eval) {
		n := len(tb.t.text)
		tb.t.blocks = append(tb.t.blocks, block{before: len(tb.eval), from: n, to: n})
	}
	b := &tb.t.blocks[len(tb.t.blocks)-1]
	tb.t.text = append(append(tb.t.text, ','), toggle...)
	b.to = len(tb.t.text)
	b.tag += mixCode(code)
}

// template returns the recorded template, nil when it cannot be used. snap
// and ctx are those the answer was evaluated from; p and onlyEnabled
// those it was encoded with.
func (tb *templateBuilder) template(snap *engine.Snapshot, ctx *engine.Context, p *pieces, onlyEnabled bool) *template {
	if tb.failed {
		return nil
	}
	t := &tb.t
	t.plan = snap.Plan(ctx, tb.eval)
	t.encodeOutcomes(p, onlyEnabled)
	// Copies of the exact size: the cache counts what a template holds.
	return &template{plan: t.plan, blocks: slices.Clone(t.blocks), text: slices.Clone(t.text), window: t.window, outcomes: t.outcomes, quiet: t.quiet}
}

// encodeOutcomes appends the toggle of each of the plan's outcomes to the
// text, from the pieces, as the encoder would.
func (t *template) encodeOutcomes(p *pieces, onlyEnabled bool) {
	t.outcomes = make([]encodedOutcome, t.plan.Outcomes())
	t.quiet = make([]bool, len(t.outcomes))
	for i := range t.outcomes {
		r, possible := t.plan.Outcome(int32(i))
		switch {
		case !possible:
		case onlyEnabled && !r.Enabled:
			t.quiet[i] = true
		default:
			from := len(t.text)
			if b, code, ok := p.appendToggle(append(t.text, ','), &r); ok {
				t.text = b
				t.outcomes[i] = encodedOutcome{tag: mixCode(code), from: int32(from), to: int32(len(b))}
			}
		}
	}
}

// replay encodes the answer for ctx, one of the template's users, into
// enc: the blocks, and the flags evaluated for this request between them.
// (enc records no template: one is recorded only from an answer evaluated
// whole.)
func (t *template) replay(enc *togglesEncoder, ctx *engine.Context) {
	enc.window = enc.window.Intersect(t.window)
	blocks, next := t.blocks, 0
	// Step s's toggle goes after the blocks with at most s evaluated flags
	// ahead of them.
	t.plan.EvaluateOutcomes(ctx, t.quiet, func(step int, outcome int32, r *engine.Result) {
		for next < len(blocks) && blocks[next].before <= step {
			enc.addRun(t.run(&blocks[next]))
			next++
		}
		if outcome >= 0 {
			// An outcome is neither volatile nor bounded in time, and its
			// toggle is the bytes the encoder would write: it has nothing
			// to note but them.
			if o := &t.outcomes[outcome]; o.from < o.to {
				enc.addRun(t.text[o.from:o.to], o.tag)
				return
			}
			v, _ := t.plan.Outcome(outcome)
			r = &v
		}
		enc.add(r)
	})
	for ; next < len(blocks); next++ { // the blocks after the last evaluated flag
		enc.addRun(t.run(&blocks[next]))
	}
}
