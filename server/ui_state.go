package server

// What Unleash's UI remembers per person about itself: feedback
// questionnaires answered or dismissed (/api/admin/feedback) and splash
// screens seen (/api/admin/splash/{id}). GET /api/admin/user answers them
// back, so that the UI does not show them again. Each person's state is
// one instance setting.

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerUIState(s *Server, m mux) {
	m.admin("POST /api/admin/feedback", PermRead, s.handleCreateFeedback)
	m.admin("PUT /api/admin/feedback/{id}", PermRead, s.handleUpdateFeedback)
	m.admin("POST /api/admin/splash/{id}", PermRead, s.handleSplashSeen)
}

// maxUIStateItems bounds the questionnaires and splash screens kept per
// person.
const maxUIStateItems = 200

// uiState is one person's UI state.
type uiState struct {
	Feedback map[string]feedbackState `json:"feedback"`
	Splash   map[string]bool          `json:"splash"`
}

type feedbackState struct {
	NeverShow bool       `json:"neverShow"`
	Given     *time.Time `json:"given"`
}

// feedbackJSON is Unleash's feedbackResponseSchema.
type feedbackJSON struct {
	UserID     int        `json:"userId"`
	FeedbackID string     `json:"feedbackId"`
	NeverShow  bool       `json:"neverShow"`
	Given      *time.Time `json:"given"`
}

func uiStateSettingName(userID int) string { return "ui.user." + strconv.Itoa(userID) }

func readUIState(ctx context.Context, rd store.Reader, userID int) (uiState, error) {
	st := uiState{Feedback: map[string]feedbackState{}, Splash: map[string]bool{}}
	s, err := rd.GetSetting(ctx, uiStateSettingName(userID))
	if apierr.Is(err, apierr.NotFound) {
		return st, nil
	} else if err != nil {
		return st, err
	}
	if err := json.Unmarshal(s.Value, &st); err != nil {
		return st, err
	}
	if st.Feedback == nil {
		st.Feedback = map[string]feedbackState{}
	}
	if st.Splash == nil {
		st.Splash = map[string]bool{}
	}
	return st, nil
}

// feedbackList is the person's feedback as GET /api/admin/user lists it.
func (st uiState) feedbackList(userID int) []feedbackJSON {
	out := []feedbackJSON{}
	for id, f := range st.Feedback {
		out = append(out, feedbackJSON{UserID: userID, FeedbackID: id, NeverShow: f.NeverShow, Given: f.Given})
	}
	return out
}

// changeUIState applies edit to the caller's state and stores it. Event
// setting-updated (the state is a setting of the instance's).
func (s *Server) changeUIState(ctx context.Context, edit func(*uiState) error) (int, error) {
	u, err := signedInUser(ctx, apierr.BadData)
	if err != nil {
		return 0, err
	}
	return u.ID, s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		st, err := readUIState(ctx, tx, u.ID)
		if err != nil {
			return nil, err
		}
		if err := edit(&st); err != nil {
			return nil, err
		}
		if len(st.Feedback) > maxUIStateItems || len(st.Splash) > maxUIStateItems {
			return nil, apierr.New(apierr.BadData, "at most %d questionnaires and splash screens are remembered", maxUIStateItems)
		}
		value, err := json.Marshal(st)
		if err != nil {
			return nil, err
		}
		if _, err := tx.PutSetting(ctx, store.Setting{Name: uiStateSettingName(u.ID), Value: value}); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "setting-updated", Data: json.RawMessage(`{"id":` + strconv.Quote(uiStateSettingName(u.ID)) + `,"value":` + string(value) + `}`)}}, nil
	})
}

func checkUIStateID(field, id string) error {
	if id == "" {
		return apierr.Invalid(field, "%s is required", field)
	}
	return checkText(field, id, 100)
}

// handleCreateFeedback is Unleash's createFeedback: the caller answered
// (given is now) or dismissed (neverShow) a questionnaire. 200 with the
// stored feedback; 400 for an API token.
func (s *Server) handleCreateFeedback(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		FeedbackID string `json:"feedbackId"`
		NeverShow  bool   `json:"neverShow"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := checkUIStateID("feedbackId", body.FeedbackID); err != nil {
		return err
	}
	now := s.now().UTC()
	fb := feedbackState{NeverShow: body.NeverShow, Given: &now}
	uid, err := s.changeUIState(r.Context(), func(st *uiState) error {
		st.Feedback[body.FeedbackID] = fb
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, feedbackJSON{UserID: uid, FeedbackID: body.FeedbackID, NeverShow: fb.NeverShow, Given: fb.Given})
}

// handleUpdateFeedback is Unleash's updateFeedback: neverShow and given of
// a questionnaire, as sent (members left out keep their value).
func (s *Server) handleUpdateFeedback(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		NeverShow *bool      `json:"neverShow"`
		Given     *time.Time `json:"given"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	id := r.PathValue("id")
	if err := checkUIStateID("id", id); err != nil {
		return err
	}
	var fb feedbackState
	uid, err := s.changeUIState(r.Context(), func(st *uiState) error {
		fb = st.Feedback[id]
		if body.NeverShow != nil {
			fb.NeverShow = *body.NeverShow
		}
		if body.Given != nil {
			fb.Given = body.Given
		}
		st.Feedback[id] = fb
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, feedbackJSON{UserID: uid, FeedbackID: id, NeverShow: fb.NeverShow, Given: fb.Given})
}

// handleSplashSeen is Unleash's updateSplashSettings: the caller saw the
// splash screen. 200 with {userId, splashId, seen}.
func (s *Server) handleSplashSeen(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := checkUIStateID("id", id); err != nil {
		return err
	}
	uid, err := s.changeUIState(r.Context(), func(st *uiState) error {
		st.Splash[id] = true
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"userId": uid, "splashId": id, "seen": true})
}
