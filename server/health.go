package server

import "net/http"

type health struct {
	Health string `json:"health"`
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, health{Health: "GOOD"})
}

// handleReady answers GOOD only while the database answers.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) error {
	if !s.ready.Load() {
		return writeJSON(w, http.StatusServiceUnavailable, health{Health: "BAD"})
	}
	if _, err := s.store.Revision(r.Context()); err != nil {
		s.ready.Store(false)
		return writeJSON(w, http.StatusServiceUnavailable, health{Health: "BAD"})
	}
	return writeJSON(w, http.StatusOK, health{Health: "GOOD"})
}
