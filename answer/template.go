package answer

import (
	"slices"
	"sync"
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
	plan *engine.Plan // evaluates the flags in between for each user
	// before is, for each of the plan's flags, the run of toggles that
	// goes ahead of it, and last the one after the last (runs may be
	// empty).
	before []textRun
	// text holds the run ahead of the first flag and then, flag by flag,
	// its outcomes' toggles, each followed by the run after the flag (see
	// encodeOutcomes); each toggle after a comma: a run is copied whole,
	// its comma left off when it opens the answer.
	text   []byte
	window engine.Window
	// outcomes are the plan's outcomes (engine.Plan.Outcome) as encoded,
	// by index: a flag the plan answers from its checks adds its
	// outcome's toggle without being encoded again. quiet marks those
	// that add nothing (left out of the answer, with an empty toggle),
	// which the plan does not hand over.
	outcomes []outcomeRun
	quiet    []bool
	// decided says that every outcome the plan can name has its run, so
	// that an answer can be the runs of the outcomes the plan decides
	// between the blocks' (see assemble).
	decided bool
}

// textRun is a run of toggles in a template's text, each after a comma,
// and what their codes add to the answer's tag (see tagger). The text
// follows the plan's flags, so a user's answer reads it front to back.
type textRun struct {
	tag      uint64
	from, to int32
}

// run is r's toggles and what they add to the tag.
func (t *template) run(r *textRun) ([]byte, uint64) { return t.text[r.from:r.to], r.tag }

// outcomeRun is an outcome's toggle in the template's text (from:mid),
// followed there by a copy of the run that goes after its flag (mid:to),
// so that an answer assembled from decided outcomes copies one run per
// flag (see assemble). The toggle of an outcome left out is empty, its run
// the flag's; an outcome without pieces (its toggle empty, not left out)
// is encoded as any other result.
type outcomeRun struct {
	tag           uint64 // the toggle's
	joinedTag     uint64 // the toggle's and the run's after it
	from, mid, to int32
}

// toggle is o's toggle and what it adds to the tag.
func (t *template) toggle(o *outcomeRun) ([]byte, uint64) { return t.text[o.from:o.mid], o.tag }

// size is what t holds, for the cache's bound.
func (t *template) size() int64 {
	return int64(len(t.text)+int(unsafe.Sizeof(textRun{}))*len(t.before)+(int(unsafe.Sizeof(outcomeRun{}))+1)*len(t.outcomes)) +
		t.plan.Size()
}

// templateBuilder records a template while a whole answer is encoded.
type templateBuilder struct {
	t      template
	blocks []block
	eval   []int32 // flags evaluated per request, ascending
	failed bool
}

// block is a run that goes after the first before flags the plan
// evaluates and ahead of the rest.
type block struct {
	before int
	run    textRun
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
	if last := len(tb.blocks) - 1; last < 0 || tb.blocks[last].before != len(tb.eval) {
		n := int32(len(tb.t.text))
		tb.blocks = append(tb.blocks, block{before: len(tb.eval), run: textRun{from: n, to: n}})
	}
	b := &tb.blocks[len(tb.blocks)-1]
	tb.t.text = append(append(tb.t.text, ','), toggle...)
	b.run.to = int32(len(tb.t.text))
	b.run.tag += mixCode(code)
}

// template returns the recorded template, nil when it cannot be used. snap
// and ctx are those the answer was evaluated from; p and onlyEnabled
// those it was encoded with.
func (tb *templateBuilder) template(snap *engine.Snapshot, ctx *engine.Context, p *pieces, onlyEnabled bool) *template {
	if tb.failed {
		return nil
	}
	if len(tb.blocks) == 0 {
		return nil // nothing shared: a template would save nothing
	}
	t := &tb.t
	t.plan = snap.Plan(ctx, tb.eval)
	blocks := make([]textRun, len(tb.eval)+1) // in the recorded text
	for _, b := range tb.blocks {
		blocks[b.before] = b.run
	}
	t.encodeOutcomes(p, onlyEnabled, t.text, blocks)
	// Copies of the exact size: the cache counts what a template holds.
	return &template{plan: t.plan, before: t.before, text: slices.Clone(t.text), window: t.window,
		outcomes: t.outcomes, quiet: t.quiet, decided: t.decided}
}

// encodeOutcomes lays out the template's text from the recorded one and
// its blocks (the run ahead of each flag the plan evaluates, and after the
// last): the run ahead of the first flag, then for each flag its outcomes'
// toggles, from the pieces as the encoder would write them, each followed
// by a copy of the run after the flag. That run itself is the first such
// copy (or, for a flag no outcome of which is listed, one of its own),
// which the flag's outcomes left out stand for.
func (t *template) encodeOutcomes(p *pieces, onlyEnabled bool, recorded []byte, blocks []textRun) {
	n := t.plan.Outcomes()
	t.outcomes, t.quiet, t.decided = make([]outcomeRun, n), make([]bool, n), true
	t.before = make([]textRun, len(blocks))
	text := make([]byte, 0, 2*len(recorded))
	copyRun := func(r textRun) textRun {
		from := len(text)
		text = append(text, recorded[r.from:r.to]...)
		return textRun{tag: r.tag, from: int32(from), to: int32(len(text))}
	}
	t.before[0] = copyRun(blocks[0])
	o := 0
	for k := 1; k < len(blocks); k++ { // the flag before blocks[k]
		after, placed, first := blocks[k], false, o
		for ; o < n && t.plan.OutcomeStep(int32(o)) == k-1; o++ {
			r, possible := t.plan.Outcome(int32(o))
			switch {
			case !possible:
			case onlyEnabled && !r.Enabled:
				t.quiet[o] = true
			default:
				from := len(text)
				b, code, ok := p.appendToggle(append(text, ','), &r)
				if !ok {
					t.decided = false // the general encoder writes it
					continue
				}
				mid := len(b)
				text = append(b, recorded[after.from:after.to]...)
				t.outcomes[o] = outcomeRun{tag: mixCode(code), joinedTag: mixCode(code) + after.tag,
					from: int32(from), mid: int32(mid), to: int32(len(text))}
				if !placed {
					t.before[k], placed = textRun{tag: after.tag, from: int32(mid), to: int32(len(text))}, true
				}
			}
		}
		if !placed {
			t.before[k] = copyRun(after)
		}
		for q := first; q < o; q++ {
			if t.quiet[q] {
				b := t.before[k]
				t.outcomes[q] = outcomeRun{joinedTag: b.tag, from: b.from, mid: b.from, to: b.to}
			}
		}
	}
	t.text = text
}

// replay encodes the answer for ctx, one of the template's users, into
// enc: the blocks, and the flags evaluated for this request between them.
// (enc records no template: one is recorded only from an answer evaluated
// whole.)
func (t *template) replay(enc *togglesEncoder, ctx *engine.Context) {
	enc.window = enc.window.Intersect(t.window)
	if t.decided && enc.first && t.assemble(enc, ctx) {
		return
	}
	next := 0 // the first run not yet added
	t.plan.EvaluateOutcomes(ctx, t.quiet, func(step int, outcome int32, r *engine.Result) {
		for ; next <= step; next++ {
			enc.addRun(t.run(&t.before[next]))
		}
		if outcome >= 0 {
			// An outcome is neither volatile nor bounded in time, and its
			// toggle is the bytes the encoder would write: it has nothing
			// to note but them.
			if o := &t.outcomes[outcome]; o.from < o.mid {
				enc.addRun(t.toggle(o))
				return
			}
			v, _ := t.plan.Outcome(outcome)
			r = &v
		}
		enc.add(r)
	})
	for ; next < len(t.before); next++ { // the runs after the last flag named
		enc.addRun(t.run(&t.before[next]))
	}
}

// assemble writes the answer into enc, which holds nothing yet but its
// opening, from the outcomes the plan decides (engine.Plan.Decide): the
// runs of those outcomes, each followed by the run after its flag, one
// copy per flag and not one branch that depends on the user, whose flags
// are on for one and off for the next. The flags evaluated in full are
// encoded first, apart, and copied in their places. It reports false,
// having written nothing, when the plan cannot decide for ctx.
func (t *template) assemble(enc *togglesEncoder, ctx *engine.Context) bool {
	sc := scratchPool.Get().(*assembleScratch)
	defer scratchPool.Put(sc)
	steps := len(t.before) - 1
	if cap(sc.out) < steps {
		sc.out = make([]int32, steps)
	}
	out := sc.out[:steps]
	if !t.plan.Decide(ctx, out) {
		return false
	}
	apart, runs := sc.apart[:0], sc.runs[:0]
	t.plan.EvaluateFull(ctx, func(_ int, r *engine.Result) {
		var run textRun
		apart, run = enc.addApart(apart, r)
		runs = append(runs, run)
	})
	sc.apart, sc.runs = apart, runs

	b := enc.b
	// The first toggle's comma takes the place of the answer's "[", put
	// back once they are written.
	open := len(b) - 1
	b = b[:open]
	lead := &t.before[0]
	b = append(b, t.text[lead.from:lead.to]...)
	tag := lead.tag
	full := 0
	for k, o := range out {
		if o >= 0 {
			oc := &t.outcomes[o]
			b = append(b, t.text[oc.from:oc.to]...)
			tag += oc.joinedTag
			continue
		}
		r, after := &runs[full], &t.before[k+1]
		full++
		b = append(b, apart[r.from:r.to]...)
		b = append(b, t.text[after.from:after.to]...)
		tag += after.tag // the toggle's code was added as it was encoded
	}
	if len(b) == open {
		b = append(b, '[')
	} else {
		b[open] = '['
		enc.first = false
	}
	enc.b = b
	enc.t.addSum(tag)
	return true
}

// assembleScratch is what assemble borrows for one answer: the plan's
// decisions, and the flags evaluated in full encoded apart.
type assembleScratch struct {
	out   []int32
	apart []byte
	runs  []textRun
}

// scratchPool holds the scratch of answers being assembled.
var scratchPool = sync.Pool{New: func() any { return new(assembleScratch) }}
