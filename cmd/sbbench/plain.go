package main

import (
	"net/http"
	"os"
	"path/filepath"
)

// plainHandler is a plain handler serving one answer of ours, running on
// the servers' CPU beside the process whose rows it is compared with.
type plainHandler struct {
	companion
	proc *child
}

// startPlain starts a plain handler answering body at path (a 304 for
// requests with header's If-None-Match); label names it in the notes of
// the rows compared with it.
func (b *bench) startPlain(what, label string, n int, body []byte, path string, header http.Header) (*plainHandler, error) {
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
	return &plainHandler{
		companion: companion{target: "plain handler", what: what, flags: n, label: label,
			cfg: b.config(proc.pid(), "GET", "http://"+addr+path, nil, header)},
		proc: proc,
	}, nil
}

// finish stops the plain handler and adds its row.
func (p *plainHandler) finish(b *bench) {
	p.proc.stop()
	b.rows = append(b.rows, p.row())
}
