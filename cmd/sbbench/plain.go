package main

import (
	"net/http"
	"os"
	"path/filepath"

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
// measured minutes after the other need not.
func (b *bench) measureBeside(p *plainHandler, target, what string, n, pid int, method, url string, body []byte, header http.Header, unique ...string) (load.Result, error) {
	ours := b.config(pid, method, url, body, header, unique...)
	var res load.Result
	for i := range max(b.windows, 1) {
		w, err := b.window(target, what, ours)
		if err != nil {
			return w, err
		}
		res = betterWindow(res, w, i == 0)
		if p != nil {
			if err := p.window(b); err != nil {
				return load.Result{}, err
			}
		}
	}
	b.rows = append(b.rows, row{target: target, what: what, flags: n, res: res})
	return res, nil
}

// window measures one window of the plain handler; its row keeps the
// fastest of all.
func (p *plainHandler) window(b *bench) error {
	w, err := b.window("plain handler", p.what, b.config(p.proc.pid(), "GET", p.url, nil, p.header))
	if err != nil {
		return err
	}
	p.res = betterWindow(p.res, w, p.windows == 0)
	p.windows++
	return nil
}

// finish stops the plain handler and adds its row.
func (p *plainHandler) finish(b *bench) load.Result {
	p.proc.stop()
	b.rows = append(b.rows, row{target: "plain handler", what: p.what, flags: p.flags, res: p.res})
	return p.res
}

// noteBeside notes, on each of the rows at the given indexes, how it
// compares with the plain handler's result.
func (b *bench) noteBeside(plain load.Result, what string, rows ...int) {
	for _, i := range rows {
		b.rows[i].note = ofPlain(b.rows[i].res, plain, what)
	}
}
