package server

// Constraint validation (POST /api/admin/constraints/validate): the
// strategy editor checks each constraint as it is typed, before the
// strategy is saved.

import (
	"net/http"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

func registerConstraintValidate(s *Server, m mux) {
	m.admin("POST /api/admin/constraints/validate", PermRead, s.handleValidateConstraint)
}

// handleValidateConstraint answers 204 when a flag strategy would accept
// the constraint: the operator and its values parse as evaluation needs
// them, and values are among the context field's legal values when it has
// some (fields that are not defined accept any value, as on strategies).
func (s *Server) handleValidateConstraint(w http.ResponseWriter, r *http.Request) error {
	var c clientapi.Constraint
	if err := decode(w, r, &c); err != nil {
		return err
	}
	if err := checkConstraint("constraint", &c); err != nil {
		return err
	}
	err := s.view(r.Context(), func(rd store.Reader) error {
		return checkLegalValues(r.Context(), rd, "constraint", c)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
