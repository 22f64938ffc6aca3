package server

import (
	"errors"
	"net/http"

	"github.com/signalbox/signalbox/store"
)

type health struct {
	Health string `json:"health"`
	// Message says why /ready is BAD, or what fails while it is GOOD.
	Message string `json:"message,omitempty"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, health{Health: "GOOD"})
}

// Messages of /ready.
const (
	readyUnreachable = "database unreachable"
	readyDiskFull    = "writes failing: disk full"
)

// handleReady answers GOOD while the database answers. While writes fail
// for lack of disk space it stays GOOD, with a message saying so: reads,
// and every SDK, are still served, and a balancer taking the instance out
// would stop them too.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	if !s.ready.Load() {
		return writeJSON(w, http.StatusServiceUnavailable, health{Health: "BAD", Message: readyUnreachable})
	}
	if _, err := s.store.Revision(r.Context()); err != nil {
		s.ready.Store(false)
		return writeJSON(w, http.StatusServiceUnavailable, health{Health: "BAD", Message: readyUnreachable})
	}
	if s.diskFull.Load() {
		return writeJSON(w, http.StatusOK, health{Health: "GOOD", Message: readyDiskFull})
	}
	return writeJSON(w, http.StatusOK, health{Health: "GOOD"})
}

// noteWrite records the outcome of a write for /ready: writes refused for
// lack of disk space show in its message until a write succeeds again.
func (s *Server) noteWrite(err error) {
	switch {
	case err == nil:
		if s.diskFull.Swap(false) {
			s.log.Info("the database takes writes again")
		}
	case errors.Is(err, store.ErrDiskFull):
		if !s.diskFull.Swap(true) {
			s.log.Error("the database's disk is full: writes fail until space is freed", "err", err)
		}
	}
}
