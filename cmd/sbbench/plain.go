package main

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/signalbox/signalbox/internal/load"
)

// plainHandler is a plain handler serving one answer of ours, running on
// the servers' CPU beside the process whose rows it is compared with, so
// that their windows can be taken in turns (see measureBeside). Its row is
// the fastest of all its windows.
type plainHandler struct {
	what    string
	flags   int
	proc    *child
	url     string
	header  http.Header
	res     load.Result
	windows int
}

// startPlain starts a plain handler answering body at path (a 304 for
// requests with header's If-None-Match).
func (b *bench) startPlain(what string, n int, body []byte, path string, header http.Header) (*plainHandler, error) {
	file, err := os.CreateTemp(b.dir, "plain-*.body")
	if err != nil {
		return nil, err
	}
	_, err = file.Write(body)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	self, _ := os.Executable()
	proc, err := startChild("plain handler", pinned(serverCPU, self, "-serve-plain", filepath.Clean(file.Name()), "-addr", addr), nil)
	if err != nil {
		return nil, err
	}
	if err := proc.waitHTTP("http://"+addr+"/", nil); err != nil {
		proc.stop()
		return nil, err
	}
	return &plainHandler{what: what, flags: n, proc: proc, url: "http://" + addr + path, header: header}, nil
}

// measureBeside is measure, in turns with the plain handler the row is
// compared with (none when p is nil): a window of ours, one of the plain
// handler, and again. Other work on a shared machine comes and goes over
// minutes; windows taken in turns meet the same machine, where a row
// measured minutes after the other need not. The row keeps each turn, for
// noteBeside.
func (b *bench) measureBeside(p *plainHandler, target, what string, n, pid int, method, url string, body []byte, header http.Header, unique ...string) (load.Result, error) {
	ours := b.config(pid, method, url, body, header, unique...)
	var (
		res   load.Result
		turns []turn
	)
	for i := range max(b.windows, 1) {
		w, err := b.window(target, what, ours)
		if err != nil {
			return w, err
		}
		res = betterWindow(res, w, i == 0)
		if p != nil {
			pw, err := p.window(b)
			if err != nil {
				return load.Result{}, err
			}
			turns = append(turns, turn{ours: w, plain: pw})
		}
	}
	b.rows = append(b.rows, row{target: target, what: what, flags: n, res: res, turns: turns})
	return res, nil
}

// turn is a window of ours and the plain handler's window right after it.
type turn struct{ ours, plain load.Result }

// window measures one window of the plain handler; its row keeps the
// fastest of all.
func (p *plainHandler) window(b *bench) (load.Result, error) {
	w, err := b.window("plain handler", p.what, b.config(p.proc.pid(), "GET", p.url, nil, p.header))
	if err != nil {
		return w, err
	}
	p.res = betterWindow(p.res, w, p.windows == 0)
	p.windows++
	return w, nil
}

// finish stops the plain handler and adds its row.
func (p *plainHandler) finish(b *bench) {
	p.proc.stop()
	b.rows = append(b.rows, row{target: "plain handler", what: p.what, flags: p.flags, res: p.res})
}

// noteBeside notes, on each of the rows at the given indexes, how it
// compared with the plain handler in its turns.
func (b *bench) noteBeside(what string, rows ...int) {
	for _, i := range rows {
		b.rows[i].note = inTurns(b.rows[i].turns, what)
	}
}

// inTurns is how ours compared with the plain handler over the turns: the
// median of the turns' ratios of rates, and of the plain handler's CPU per
// request to ours (the same comparison by work done, which the load
// generator's own limit does not blur), with the range of the first. Each
// ratio is of two windows a few seconds apart, which met the same machine;
// the fastest window of each side may come from different minutes, and one
// quiet minute on the plain handler's side (or ours) would move the
// comparison by a fifth.
func inTurns(turns []turn, what string) string {
	if len(turns) == 0 {
		return ""
	}
	var rates, cpus []float64
	for _, t := range turns {
		rates = append(rates, t.ours.RequestsPerSec/t.plain.RequestsPerSec)
		if r, ok := cpuRatio(t.ours, t.plain); ok {
			cpus = append(cpus, r)
		}
	}
	note := fmt.Sprintf("%.2f of %s", median(rates), what)
	if len(cpus) == len(turns) {
		note += fmt.Sprintf(" (%.2f by CPU)", median(cpus))
	}
	if len(rates) > 1 {
		note += fmt.Sprintf(", turns %.2f–%.2f", slices.Min(rates), slices.Max(rates))
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
