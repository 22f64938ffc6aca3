package server

import "net/http"

// Instance information for administrators (GET
// /api/admin/instance-admin/info): the version and the kind of database,
// which the Unleash-shaped statistics and UI configuration answers have
// no place for.

func registerInstanceInfo(s *Server, m mux) {
	m.admin("GET /api/admin/instance-admin/info", PermAdmin, s.handleInstanceInfo)
}

// databaseKinder is a store that names its database (sqlstore.Store).
type databaseKinder interface{ Kind() string }

// instanceInfo is the answer of GET /api/admin/instance-admin/info.
type instanceInfo struct {
	Version  string `json:"version"`
	Database string `json:"database"`
}

// handleInstanceInfo answers the version and the database kind; "unknown"
// for a store that does not say.
func (s *Server) handleInstanceInfo(w http.ResponseWriter, r *http.Request) error {
	info := instanceInfo{Version: s.cfg.Version, Database: "unknown"}
	if info.Version == "" {
		info.Version = "dev"
	}
	if k, ok := s.store.(databaseKinder); ok {
		info.Database = k.Kind()
	}
	return writeJSON(w, http.StatusOK, info)
}
