package server

// Maintenance mode (/api/admin/maintenance): while it is on, the admin API
// refuses every change (503) except switching it off again, so that an
// upgrade or a data migration can run against a stable configuration.
// SDKs are not affected: the client and frontend APIs keep serving, and
// their registrations and metrics keep being recorded.

import (
	"encoding/json"
	"net/http"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// maintenanceSettingName is the instance setting that holds the mode, as
// Unleash names it.
const maintenanceSettingName = "maintenance.mode"

// maintenancePattern is the one admin write allowed in maintenance mode.
const maintenancePattern = "POST /api/admin/maintenance"

func registerMaintenance(s *Server, m mux) {
	m.admin("GET /api/admin/maintenance", PermRead, s.handleGetMaintenance)
	m.admin(maintenancePattern, PermAdmin, s.handleToggleMaintenance)
}

// maintenanceSetting is Unleash's maintenanceSchema.
type maintenanceSetting struct {
	Enabled bool `json:"enabled"`
}

// maintenanceEvent is the data of the setting's events.
type maintenanceEvent struct {
	ID string `json:"id"`
	maintenanceSetting
}

func readMaintenance(r *http.Request, rd store.Reader) (maintenanceSetting, error) {
	var m maintenanceSetting
	st, err := rd.GetSetting(r.Context(), maintenanceSettingName)
	if apierr.Is(err, apierr.NotFound) {
		return m, nil
	} else if err != nil {
		return m, err
	}
	if err := json.Unmarshal(st.Value, &m); err != nil {
		return m, err
	}
	return m, nil
}

// refuseInMaintenance fails admin writes while maintenance mode is on. The
// setting is read from the store on every admin write, so every instance
// sharing the database agrees at once; reads are not slowed down.
func (s *Server) refuseInMaintenance(r *http.Request, pattern string) error {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return nil
	}
	if pattern == maintenancePattern {
		return nil
	}
	var m maintenanceSetting
	err := s.view(r.Context(), func(rd store.Reader) error {
		var err error
		m, err = readMaintenance(r, rd)
		return err
	})
	if err != nil {
		return err
	}
	if m.Enabled {
		return apierr.New(apierr.NotReady, "Signalbox is in maintenance mode: changes are refused until an admin switches it off (POST /api/admin/maintenance {\"enabled\": false})")
	}
	return nil
}

// handleGetMaintenance is Unleash's getMaintenance.
func (s *Server) handleGetMaintenance(w http.ResponseWriter, r *http.Request) error {
	var m maintenanceSetting
	err := s.view(r.Context(), func(rd store.Reader) error {
		var err error
		m, err = readMaintenance(r, rd)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, m)
}

// handleToggleMaintenance is Unleash's toggleMaintenance: Admin only.
// Event setting-created the first time, then setting-updated.
func (s *Server) handleToggleMaintenance(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Enabled *bool `json:"enabled"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.Enabled == nil {
		return apierr.Invalid("enabled", "enabled is required: true to start maintenance mode, false to end it")
	}
	set := maintenanceSetting{Enabled: *body.Enabled}
	value, err := json.Marshal(set)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		return saveSetting(ctx, tx, maintenanceSettingName, value, maintenanceEvent{ID: maintenanceSettingName, maintenanceSetting: set},
			func(stored json.RawMessage) json.RawMessage { return eventData(maintenanceEventFrom(stored)) })
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func maintenanceEventFrom(stored json.RawMessage) maintenanceEvent {
	ev := maintenanceEvent{ID: maintenanceSettingName}
	_ = json.Unmarshal(stored, &ev.maintenanceSetting)
	return ev
}
