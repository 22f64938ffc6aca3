package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/load"
)

// companion is a process a row of ours is compared with: a plain handler
// serving the same answer, or a reference. It is measured in turns with
// the row (see measureBeside), a window of it after each window of ours,
// so that both meet the same machine: other work on a shared machine comes
// and goes over minutes, and a row measured minutes after the other need
// not. Its own row is the fastest of all its windows.
type companion struct {
	target, what string
	flags        int
	cfg          load.Config
	// label names it in the notes of the rows compared with it. Against a
	// reference (ref) a note says how many times its rate ours is, against
	// a plain handler what fraction of it.
	label string
	ref   bool
	// paused, when set, is the companion's process, stopped but for its
	// windows (a reference: see child.pause).
	paused  *child
	res     load.Result
	windows int
}

// resumeSettle is how long a paused process runs before its window: the
// timers that came due while it was stopped fire in it, not in the window.
const resumeSettle = time.Second

// window measures one window of the companion.
func (c *companion) window(b *bench) (load.Result, error) {
	if c.paused != nil {
		c.paused.resume()
		time.Sleep(resumeSettle)
		defer c.paused.pause()
	}
	w, err := b.window(c.target, c.what, c.cfg)
	if err != nil {
		return w, err
	}
	c.res = betterWindow(c.res, w, c.windows == 0)
	c.windows++
	return w, nil
}

// row is the companion's own row: its fastest window.
func (c *companion) row() row {
	return row{target: c.target, what: c.what, flags: c.flags, res: c.res}
}

// besides is the companions that are there (a reference that is not
// installed is nil).
func besides(cs ...*companion) []*companion {
	return slices.DeleteFunc(cs, func(c *companion) bool { return c == nil })
}

// measureBeside measures a row of ours in turns with its companions: a
// window of ours, one of each companion, and again; the row shows the
// fastest of its windows, and its note how it compared with each
// companion (see inTurns). With unique set, every request carries a new
// value of that query parameter (a new context for a proxy, so nothing can
// be answered from a cache).
func (b *bench) measureBeside(beside []*companion, target, what string, n, pid int, method, url string, body []byte, header http.Header, unique ...string) error {
	ours := b.config(pid, method, url, body, header, unique...)
	var (
		res   load.Result
		turns []turn
	)
	for i := range max(b.windows, 1) {
		w, err := b.window(target, what, ours)
		if err != nil {
			return err
		}
		res = betterWindow(res, w, i == 0)
		t := turn{ours: w}
		for _, c := range beside {
			cw, err := c.window(b)
			if err != nil {
				return err
			}
			t.beside = append(t.beside, cw)
		}
		turns = append(turns, t)
	}
	var notes []string
	for j, c := range beside {
		notes = append(notes, inTurns(turns, j, c))
	}
	b.rows = append(b.rows, row{target: target, what: what, flags: n, res: res, note: strings.Join(notes, ", ")})
	return nil
}

// turn is a window of ours and, in order, each companion's window right
// after it.
type turn struct {
	ours   load.Result
	beside []load.Result
}

// inTurns is how ours compared with companion j (c) over the turns: the
// median of the turns' ratios of rates, and of the CPU per request (the
// same comparison by work done, which the load generator's own limit does
// not blur; a reference keeps its core busy in every row, where ours often
// wait on the load generator, and by CPU leaves out what a reference uses
// besides its own process, Unleash's PostgreSQL, which only flatters it),
// with the range of the first. Each ratio is of two windows a
// few seconds apart, which met the same machine. The fastest window of
// each side may come from different minutes: one quiet minute on the plain
// handler's side moved a comparison by a fifth, and the reference proxy's
// fastest window at 5,000 flags took 21 ms of CPU per answer in one run
// and 48–53 ms in others.
func inTurns(turns []turn, j int, c *companion) string {
	var rates, cpus []float64
	for _, t := range turns {
		rates = append(rates, t.ours.RequestsPerSec/t.beside[j].RequestsPerSec)
		if r, ok := cpuRatio(t.ours, t.beside[j]); ok {
			cpus = append(cpus, r)
		}
	}
	if len(rates) == 0 {
		return ""
	}
	format := func(x float64) string { return fmt.Sprintf("%.2f", x) }
	note := format(median(rates)) + " of " + c.label
	if c.ref {
		format = times
		note = format(median(rates)) + " " + c.label
	}
	if len(cpus) == len(turns) {
		note += fmt.Sprintf(" (%s by CPU)", format(median(cpus)))
	}
	if len(rates) > 1 {
		// One sign for the range: "turns 14.3–22.0×".
		note += fmt.Sprintf(", turns %s–%s", strings.TrimSuffix(format(slices.Min(rates)), "×"), format(slices.Max(rates)))
	}
	return note
}

// median of a non-empty list: its middle value, or the mean of its two
// middle values.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	m := len(s) / 2
	if len(s)%2 == 0 {
		return (s[m-1] + s[m]) / 2
	}
	return s[m]
}
