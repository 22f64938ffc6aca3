package server

// Change requests, on the paths of Unleash Enterprise's change-request API
// so that its tooling works. A project environment with change requests
// enabled takes changes to its flags only through them (see
// change_request_guard.go). Changes are gathered in the caller's draft,
// sent to review, approved by others than the author (minApprovals of
// them), and then applied, at once or by the scheduler, all in one
// transaction with the events of the direct endpoints.
//
// States and transitions (PUT …/state; "author" also admits Admins):
//
//	Draft     → In review   author, with at least one change
//	In review → Approved    a reviewer who is not the author (APPROVE_CHANGE_REQUEST);
//	                        it stays In review until minApprovals approved
//	In review, Approved, Scheduled → Rejected     a reviewer who is not the author
//	Draft, In review, Approved, Scheduled → Cancelled   author
//	Approved, Scheduled → Applied     APPLY_CHANGE_REQUEST; no change may conflict
//	Approved, Scheduled → Scheduled   APPLY_CHANGE_REQUEST, scheduledAt in the future
//
// Adding, editing or discarding a change of an Approved or Scheduled
// request returns it to In review and drops its approvals and schedule.
// Applied, Cancelled and Rejected are final.
//
// Who is who: users (by session or personal access token) are compared by
// user id, API tokens by token id (store.Actor.Key). Reviews are tied to
// people: API tokens cannot approve or reject at all, and a request
// proposed through an API token counts as proposed by the user who created
// the token (store.APIToken.CreatedByUserID), who therefore cannot approve
// it either. Nobody reviews a request they proposed or changed.
//
// Permissions are checked in the request's project: root roles, or the
// project roles Member (propose) and Owner (propose, approve, apply); see
// permissions.go. Changing the requirement itself (PUT …/config) needs
// UPDATE_PROJECT (project Owners, Admins); turning it off or lowering the
// approvals it needs is for Admins only, so that no single project member
// can switch the review off, edit, and switch it back on.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

// The permissions of reviewing and applying change requests (Unleash's
// names). Admins and Editors hold them everywhere, project Owners in their
// project.
const (
	PermApproveChangeRequest Permission = "APPROVE_CHANGE_REQUEST"
	PermApplyChangeRequest   Permission = "APPLY_CHANGE_REQUEST"
)

const (
	crPath    = "/api/admin/projects/{projectId}/change-requests"
	crOnePath = crPath + "/{changeRequestId}"
	crEnvPath = "/api/admin/projects/{projectId}/environments/{environment}/change-requests"
	// crListLimit is how many requests the list answers, newest first.
	crListLimit = 300
	// maxChangesPerRequest bounds the changes one POST may add.
	maxChangesPerRequest = 100
	maxCommentLength     = 5000
	maxApprovals         = 10
)

func registerChangeRequests(s *Server, m mux) {
	m.admin("GET "+crPath+"/config", PermRead, s.handleGetChangeRequestConfig)
	m.admin("PUT "+crEnvPath+"/config", PermUpdateProject, s.handleSetChangeRequestConfig)
	m.admin("POST "+crEnvPath, PermUpdateFeature, s.handleAddChanges)
	m.admin("GET "+crPath, PermRead, s.handleListChangeRequests)
	m.admin("GET "+crPath+"/pending", PermRead, s.handlePendingChangeRequests)
	m.admin("GET "+crPath+"/pending/{featureName}", PermRead, s.handlePendingChangeRequests)
	m.admin("GET "+crPath+"/count", PermRead, s.handleCountChangeRequests)
	m.admin("GET "+crPath+"/scheduled", PermRead, s.handleScheduledChangeRequests)
	m.admin("GET "+crOnePath, PermRead, s.handleGetChangeRequest)
	m.admin("DELETE "+crOnePath, PermUpdateFeature, s.handleDeleteChangeRequest)
	m.admin("PUT "+crOnePath+"/state", PermUpdateFeature, s.handleChangeRequestState)
	m.admin("POST "+crOnePath+"/comments", PermUpdateFeature, s.handleAddComment)
	m.admin("PUT "+crOnePath+"/changes/{changeId}", PermUpdateFeature, s.handleEditChange)
	m.admin("DELETE "+crOnePath+"/changes/{changeId}", PermUpdateFeature, s.handleDiscardChange)
}

// pendingStates are the states of requests still pending: not yet applied,
// scheduled, rejected or cancelled.
var pendingStates = []string{store.ChangeRequestDraft, store.ChangeRequestInReview, store.ChangeRequestApproved}

// open reports whether a request can still change and be applied.
func open(state string) bool {
	return slices.Contains(pendingStates, state) || state == store.ChangeRequestScheduled
}

// actorOf identifies a principal in change requests (see the file comment).
func actorOf(p *Principal) store.Actor {
	switch {
	case p != nil && p.User != nil:
		return store.Actor{Key: "user:" + strconv.Itoa(p.User.ID), Name: p.Name(), UserID: p.User.ID}
	case p != nil && p.Token != nil:
		// UserID is the person behind the token, when known.
		return store.Actor{Key: "token:" + strconv.FormatInt(p.Token.ID, 10), Name: p.Name(), UserID: p.Token.CreatedByUserID}
	}
	return store.Actor{Key: "unknown", Name: p.Name()}
}

// isAuthor reports whether p may act as the author of cr: it is the
// author, or an Admin.
func isAuthor(p *Principal, cr store.ChangeRequest) bool {
	return actorOf(p).Key == cr.CreatedBy.Key || p.can(PermAdmin)
}

// Configuration.

// changeRequestConfigJSON is one environment's configuration. Unleash's
// UI reads changeRequestEnabled, its project schemas say
// changeRequestsEnabled; both are given.
type changeRequestConfigJSON struct {
	Environment           string `json:"environment"`
	Type                  string `json:"type"`
	ChangeRequestEnabled  bool   `json:"changeRequestEnabled"`
	ChangeRequestsEnabled bool   `json:"changeRequestsEnabled"`
	RequiredApprovals     int    `json:"requiredApprovals"`
}

func (s *Server) handleGetChangeRequestConfig(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	out := []changeRequestConfigJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		list, err := rd.ListChangeRequestConfigs(ctx, r.PathValue("projectId"))
		if err != nil {
			return err
		}
		for _, c := range list {
			e, err := rd.GetEnvironment(ctx, c.Environment)
			if err != nil {
				return err
			}
			out = append(out, changeRequestConfigJSON{Environment: c.Environment, Type: e.Type,
				ChangeRequestEnabled: c.Enabled, ChangeRequestsEnabled: c.Enabled, RequiredApprovals: c.RequiredApprovals})
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// configData is the data of change-request-configuration-updated events.
type configData struct {
	ChangeRequestsEnabled bool `json:"changeRequestsEnabled"`
	RequiredApprovals     int  `json:"requiredApprovals"`
}

func (s *Server) handleSetChangeRequestConfig(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		ChangeRequestsEnabled *bool    `json:"changeRequestsEnabled"`
		RequiredApprovals     *float64 `json:"requiredApprovals"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if in.ChangeRequestsEnabled == nil {
		return apierr.Invalid("changeRequestsEnabled", "changeRequestsEnabled is required")
	}
	ctx, project := r.Context(), r.PathValue("projectId")
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		e, _, err := projectEnvironment(ctx, tx, project, r.PathValue("environment"))
		if err != nil {
			return nil, err
		}
		before, err := tx.GetChangeRequestConfig(ctx, project, e.Name)
		if err != nil {
			return nil, err
		}
		after := before
		after.Enabled = *in.ChangeRequestsEnabled
		if in.RequiredApprovals != nil {
			// Clamped rather than refused, as Unleash does.
			after.RequiredApprovals = int(max(1, min(maxApprovals, math.Floor(*in.RequiredApprovals))))
		}
		if after == before {
			return nil, nil
		}
		if weakens(before, after) && !principalFrom(ctx).can(PermAdmin) {
			return nil, apierr.New(apierr.NoAccess,
				"only an Admin can turn change requests off or lower the approvals they need (environment %s of project %s)", e.Name, project)
		}
		if _, err := tx.SetChangeRequestConfig(ctx, after); err != nil {
			return nil, err
		}
		return []store.Event{{Type: "change-request-configuration-updated", Project: project, Environment: e.Name,
			Data:    eventData(configData{after.Enabled, after.RequiredApprovals}),
			PreData: eventData(configData{before.Enabled, before.RequiredApprovals})}}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// weakens reports whether a configuration change lowers the review that
// changes need: switching change requests off, or asking fewer approvals
// while they stay on.
func weakens(before, after store.ChangeRequestConfig) bool {
	if !before.Enabled {
		return false
	}
	return !after.Enabled || after.RequiredApprovals < before.RequiredApprovals
}

// Reading.

// crUserJSON is who did something, as change requests show it.
type crUserJSON struct {
	ID       *int    `json:"id,omitempty"`
	Username string  `json:"username"`
	ImageURL *string `json:"imageUrl"`
}

type crChangeJSON struct {
	ID        int             `json:"id"`
	Action    string          `json:"action"`
	Conflict  string          `json:"conflict,omitempty"`
	Payload   json.RawMessage `json:"payload"`
	CreatedBy crUserJSON      `json:"createdBy"`
	CreatedAt time.Time       `json:"createdAt"`
}

type crFeatureJSON struct {
	Name          string         `json:"name"`
	Conflict      string         `json:"conflict,omitempty"`
	Changes       []crChangeJSON `json:"changes"`
	DefaultChange *crDefaultJSON `json:"defaultChange,omitempty"`
	target        *crTarget      // resolved flag environment, nil when it is gone
	changes       []store.Change // the flag's changes
}

// crDefaultJSON is what applying the request does to a flag beyond its
// changes: switching on a flag without an enabled strategy adds the
// project environment's default strategy.
type crDefaultJSON struct {
	Action  string                 `json:"action"`
	Payload store.StrategyTemplate `json:"payload"`
}

type crSegmentJSON struct {
	crChangeJSON
	Name string `json:"name"`
}

type crReviewJSON struct {
	CreatedBy crUserJSON `json:"createdBy"`
	CreatedAt time.Time  `json:"createdAt"`
}

type crCommentJSON struct {
	ID        int        `json:"id"`
	Text      string     `json:"text"`
	CreatedBy crUserJSON `json:"createdBy"`
	CreatedAt time.Time  `json:"createdAt"`
}

type crScheduleJSON struct {
	ScheduledAt   time.Time `json:"scheduledAt"`
	Status        string    `json:"status"`
	FailureReason *string   `json:"failureReason"`
}

// changeRequestJSON is a change request as the admin API shows it.
type changeRequestJSON struct {
	ID           int              `json:"id"`
	Title        string           `json:"title"`
	Environment  string           `json:"environment"`
	MinApprovals int              `json:"minApprovals"`
	Project      string           `json:"project"`
	Features     []*crFeatureJSON `json:"features"`
	Segments     []crSegmentJSON  `json:"segments"`
	Approvals    []crReviewJSON   `json:"approvals"`
	Rejections   []crReviewJSON   `json:"rejections"`
	Comments     []crCommentJSON  `json:"comments"`
	CreatedBy    crUserJSON       `json:"createdBy"`
	CreatedAt    time.Time        `json:"createdAt"`
	State        string           `json:"state"`
	Schedule     *crScheduleJSON  `json:"schedule,omitempty"`
}

// crViewer builds views, reading each user's picture once.
type crViewer struct {
	ctx    context.Context
	r      store.Reader
	images map[int]*string
}

func newCRViewer(ctx context.Context, r store.Reader) *crViewer {
	return &crViewer{ctx: ctx, r: r, images: map[int]*string{}}
}

func (v *crViewer) user(a store.Actor) crUserJSON {
	u := crUserJSON{Username: a.Name}
	if a.UserID == 0 || !strings.HasPrefix(a.Key, "user:") { // a token is shown by its name
		return u
	}
	id := a.UserID
	u.ID = &id
	img, ok := v.images[id]
	if !ok {
		if found, err := v.r.GetUser(v.ctx, id); err == nil {
			img = nullable(found.ImageURL)
		}
		v.images[id] = img
	}
	u.ImageURL = img
	return u
}

func (v *crViewer) change(c store.Change, conflict string) crChangeJSON {
	payload := c.Payload
	if len(payload) == 0 {
		payload = json.RawMessage(`{}`)
	}
	return crChangeJSON{ID: c.ID, Action: c.Action, Conflict: conflict, Payload: payload,
		CreatedBy: v.user(c.CreatedBy), CreatedAt: c.CreatedAt}
}

// view builds the answer for cr. Conflicts are looked for while the
// request can still be applied; its history is shown as it is.
func (v *crViewer) view(cr store.ChangeRequest) (changeRequestJSON, error) {
	out := changeRequestJSON{
		ID: cr.ID, Title: cr.Title, Environment: cr.Environment, MinApprovals: cr.MinApprovals, Project: cr.Project,
		Features: []*crFeatureJSON{}, Segments: []crSegmentJSON{}, Approvals: []crReviewJSON{}, Rejections: []crReviewJSON{},
		Comments: []crCommentJSON{}, CreatedBy: v.user(cr.CreatedBy), CreatedAt: cr.CreatedAt, State: cr.State,
	}
	if out.Title == "" {
		out.Title = "Change request #" + strconv.Itoa(cr.ID)
	}
	live := open(cr.State)
	byFeature := map[string]*crFeatureJSON{}
	for _, c := range cr.Changes {
		conflict := ""
		if live {
			var err error
			if conflict, err = changeConflict(v.ctx, v.r, cr, c); err != nil {
				return out, err
			}
		}
		if c.Feature == "" {
			var seg struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(c.Snapshot, &seg)
			out.Segments = append(out.Segments, crSegmentJSON{crChangeJSON: v.change(c, conflict), Name: seg.Name})
			continue
		}
		f := byFeature[c.Feature]
		if f == nil {
			f = &crFeatureJSON{Name: c.Feature, Changes: []crChangeJSON{}}
			byFeature[c.Feature] = f
			out.Features = append(out.Features, f)
			if live {
				t, err := crTargetOf(v.ctx, v.r, cr, c)
				if err == nil {
					f.target = &t
				} else if f.Conflict, err = conflictMessage(err); err != nil {
					return out, err
				}
			}
		}
		f.Changes = append(f.Changes, v.change(c, conflict))
		f.changes = append(f.changes, c)
	}
	for _, f := range out.Features {
		if f.target != nil {
			d, err := defaultChange(v.ctx, v.r, *f.target, f.changes)
			if err != nil {
				return out, err
			}
			f.DefaultChange = d
		}
	}
	for _, a := range cr.Approvals {
		out.Approvals = append(out.Approvals, crReviewJSON{CreatedBy: v.user(a.By), CreatedAt: a.CreatedAt})
	}
	for _, a := range cr.Rejections {
		out.Rejections = append(out.Rejections, crReviewJSON{CreatedBy: v.user(a.By), CreatedAt: a.CreatedAt})
	}
	for _, c := range cr.Comments {
		out.Comments = append(out.Comments, crCommentJSON{ID: c.ID, Text: c.Text, CreatedBy: v.user(c.By), CreatedAt: c.CreatedAt})
	}
	if cr.State == store.ChangeRequestScheduled && cr.Schedule != nil {
		out.Schedule = &crScheduleJSON{ScheduledAt: cr.Schedule.At, Status: cr.Schedule.Status, FailureReason: nullable(cr.Schedule.FailureReason)}
	}
	return out, nil
}

// defaultChange is the strategy that switching a flag on will add, when
// its changes switch it on without adding a strategy and it has no
// enabled one (nor disabled ones it asks to re-enable).
func defaultChange(ctx context.Context, r store.Reader, t crTarget, changes []store.Change) (*crDefaultJSON, error) {
	on, activate := false, false
	for _, c := range changes {
		switch c.Action {
		case "addStrategy":
			return nil, nil
		case "updateEnabled":
			var p struct {
				Enabled                          bool `json:"enabled"`
				ShouldActivateDisabledStrategies bool `json:"shouldActivateDisabledStrategies"`
			}
			_ = json.Unmarshal(c.Payload, &p)
			on, activate = p.Enabled, p.ShouldActivateDisabledStrategies
		}
	}
	if !on {
		return nil, nil
	}
	list, err := r.ListStrategies(ctx, store.StrategyFilter{Feature: t.feature.Name, Environment: t.env.Name})
	if err != nil || slices.ContainsFunc(list, func(st store.Strategy) bool { return !st.Disabled }) || (activate && len(list) > 0) {
		return nil, err
	}
	st := defaultStrategy(t.pe, t.feature.Name)
	return &crDefaultJSON{Action: "addStrategy", Payload: store.StrategyTemplate{
		Name: st.Name, Title: st.Title, Parameters: st.Parameters, Constraints: st.Constraints, Variants: st.Variants, Segments: st.Segments,
	}}, nil
}

// projectChangeRequest reads request id of project: NotFound when it
// belongs to another project.
func projectChangeRequest(ctx context.Context, r store.Reader, project string, id int) (store.ChangeRequest, error) {
	cr, err := r.GetChangeRequest(ctx, id)
	if err == nil && cr.Project != project {
		err = apierr.New(apierr.NotFound, "project %s has no change request %d", project, id)
	}
	return cr, err
}

// writeChangeRequest answers with the current view of request id.
func (s *Server) writeChangeRequest(w http.ResponseWriter, r *http.Request, status, id int) error {
	var out changeRequestJSON
	err := s.view(r.Context(), func(rd store.Reader) error {
		cr, err := rd.GetChangeRequest(r.Context(), id)
		if err != nil {
			return err
		}
		out, err = newCRViewer(r.Context(), rd).view(cr)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, status, out)
}

func (s *Server) handleGetChangeRequest(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "changeRequestId")
	if err != nil {
		return err
	}
	err = s.view(r.Context(), func(rd store.Reader) error {
		_, err := projectChangeRequest(r.Context(), rd, r.PathValue("projectId"), id)
		return err
	})
	if err != nil {
		return err
	}
	return s.writeChangeRequest(w, r, http.StatusOK, id)
}

// listChangeRequests answers the requests of the path's project that f
// selects and keep accepts (nil: all).
func (s *Server) listChangeRequests(w http.ResponseWriter, r *http.Request, f store.ChangeRequestFilter, keep func(store.ChangeRequest) bool) error {
	ctx := r.Context()
	f.Project = r.PathValue("projectId")
	out := []changeRequestJSON{}
	err := s.view(ctx, func(rd store.Reader) error {
		if _, err := rd.GetProject(ctx, f.Project); err != nil {
			return err
		}
		list, err := rd.ListChangeRequests(ctx, f)
		if err != nil {
			return err
		}
		v := newCRViewer(ctx, rd)
		for _, cr := range list {
			if keep != nil && !keep(cr) {
				continue
			}
			j, err := v.view(cr)
			if err != nil {
				return err
			}
			out = append(out, j)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleListChangeRequests(w http.ResponseWriter, r *http.Request) error {
	return s.listChangeRequests(w, r, store.ChangeRequestFilter{Limit: crListLimit}, nil)
}

// handlePendingChangeRequests lists the pending requests of the project,
// or those with changes to the flag in the path.
func (s *Server) handlePendingChangeRequests(w http.ResponseWriter, r *http.Request) error {
	return s.listChangeRequests(w, r, store.ChangeRequestFilter{States: pendingStates, Feature: r.PathValue("featureName")}, nil)
}

// handleScheduledChangeRequests lists the Scheduled requests of the
// project; the query may narrow them to those changing a flag (feature)
// or a strategy (strategyId), as Unleash's UI asks before an edit.
func (s *Server) handleScheduledChangeRequests(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	strategy := q.Get("strategyId")
	f := store.ChangeRequestFilter{States: []string{store.ChangeRequestScheduled}, Feature: q.Get("feature")}
	return s.listChangeRequests(w, r, f, func(cr store.ChangeRequest) bool {
		return strategy == "" || slices.ContainsFunc(cr.Changes, func(c store.Change) bool {
			var p struct {
				ID string `json:"id"`
			}
			return json.Unmarshal(c.Payload, &p) == nil && p.ID == strategy
		})
	})
}

// handleCountChangeRequests counts the project's requests by state, with
// Unleash's names (reviewRequired is In review).
func (s *Server) handleCountChangeRequests(w http.ResponseWriter, r *http.Request) error {
	ctx, project := r.Context(), r.PathValue("projectId")
	counts := map[string]int{}
	total := 0
	err := s.view(ctx, func(rd store.Reader) error {
		if _, err := rd.GetProject(ctx, project); err != nil {
			return err
		}
		list, err := rd.ListChangeRequests(ctx, store.ChangeRequestFilter{Project: project})
		for _, cr := range list {
			counts[cr.State]++
		}
		total = len(list)
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]int{
		"total": total, "draft": counts[store.ChangeRequestDraft], "reviewRequired": counts[store.ChangeRequestInReview],
		"approved": counts[store.ChangeRequestApproved], "applied": counts[store.ChangeRequestApplied],
		"rejected": counts[store.ChangeRequestRejected], "cancelled": counts[store.ChangeRequestCancelled],
		"scheduled": counts[store.ChangeRequestScheduled],
	})
}

// Events.

// crData is the data of change request events.
type crData struct {
	ID            int        `json:"id"`
	Title         string     `json:"title,omitempty"`
	State         string     `json:"state"`
	MinApprovals  int        `json:"minApprovals"`
	Approvals     int        `json:"approvals"`
	ScheduledAt   *time.Time `json:"scheduledAt,omitempty"`
	FailureReason string     `json:"failureReason,omitempty"`
}

func crDataOf(cr store.ChangeRequest) crData {
	d := crData{ID: cr.ID, Title: cr.Title, State: cr.State, MinApprovals: cr.MinApprovals, Approvals: len(cr.Approvals)}
	if cr.Schedule != nil {
		at := cr.Schedule.At
		d.ScheduledAt, d.FailureReason = &at, cr.Schedule.FailureReason
	}
	return d
}

// crEvent records something that happened to a request; before, if not
// nil, is its previous state.
func crEvent(typ string, cr store.ChangeRequest, before *store.ChangeRequest) store.Event {
	e := store.Event{Type: typ, Project: cr.Project, Environment: cr.Environment, Data: eventData(crDataOf(cr))}
	if before != nil {
		e.PreData = eventData(crDataOf(*before))
	}
	return e
}

// changeData is the data of change-added, change-edited and
// change-discarded events.
type changeData struct {
	ChangeRequestID int             `json:"changeRequestId"`
	State           string          `json:"state"`
	ID              int             `json:"id"`
	Action          string          `json:"action"`
	Feature         string          `json:"feature,omitempty"`
	Payload         json.RawMessage `json:"payload,omitempty"`
}

func changeEvent(typ string, cr store.ChangeRequest, c, before *store.Change) store.Event {
	e := store.Event{Type: typ, Project: cr.Project, Environment: cr.Environment}
	data := func(c *store.Change) json.RawMessage {
		return eventData(changeData{ChangeRequestID: cr.ID, State: cr.State, ID: c.ID, Action: c.Action, Feature: c.Feature, Payload: c.Payload})
	}
	if c != nil {
		e.FeatureName, e.Data = c.Feature, data(c)
	}
	if before != nil {
		e.FeatureName, e.PreData = before.Feature, data(before)
	}
	return e
}

// Changes.

// changeInput is one change of a request body.
type changeInput struct {
	Feature string          `json:"feature"`
	Action  string          `json:"action"`
	Payload json.RawMessage `json:"payload"`
}

// decodeChangeInputs reads one change or a list of them.
func decodeChangeInputs(w http.ResponseWriter, r *http.Request) ([]changeInput, error) {
	var raw json.RawMessage
	if err := decode(w, r, &raw); err != nil {
		return nil, err
	}
	var list []changeInput
	if t := strings.TrimSpace(string(raw)); strings.HasPrefix(t, "[") {
		if err := decodeDoc(raw, &list); err != nil {
			return nil, err
		}
	} else {
		var one changeInput
		if err := decodeDoc(raw, &one); err != nil {
			return nil, err
		}
		list = []changeInput{one}
	}
	switch {
	case len(list) == 0:
		return nil, apierr.Invalid("body", "send a change, or a list of at least one change")
	case len(list) > maxChangesPerRequest:
		return nil, apierr.Invalid("body", "at most %d changes can be sent at once", maxChangesPerRequest)
	}
	return list, nil
}

// change checks the input's action and returns it as a change by actor;
// the principal must hold the action's permission in the request's
// project, as may reports.
func (in changeInput) change(p *Principal, may func(Permission) error) (store.Change, error) {
	a, ok := crActions[in.Action]
	if !ok {
		return store.Change{}, apierr.Invalid("action", "action %q is not one of %s", in.Action, crActionNames)
	}
	if err := may(a.perm); err != nil {
		return store.Change{}, err
	}
	c := store.Change{Action: in.Action, CreatedBy: actorOf(p)}
	if a.flag {
		if strings.TrimSpace(in.Feature) == "" {
			return c, apierr.Invalid("feature", "feature, the flag that %s applies to, is required", in.Action)
		}
		c.Feature = in.Feature
	}
	if !emptyPayload(in.Payload) {
		c.Payload = in.Payload
	}
	return c, nil
}

// errDryRun rolls back the transaction of prepareChange.
var errDryRun = errors.New("dry run")

// prepareChange checks that change c can be applied as part of cr, by
// applying cr's other changes (but the one with id except, when not 0;
// their errors do not count) and then c in a transaction that is rolled
// back. It returns the snapshot of c's target, taken before.
func (s *Server) prepareChange(ctx context.Context, cr store.ChangeRequest, c store.Change, except int) (json.RawMessage, error) {
	var snapshot json.RawMessage
	err := s.store.Update(ctx, func(tx store.Tx) error {
		t, err := crTargetOf(ctx, tx, cr, c)
		if err != nil {
			return err
		}
		if snapshot, err = snapshotOf(ctx, tx, t, c); err != nil {
			return err
		}
		for _, other := range cr.Changes {
			if except == 0 || other.ID != except {
				_, _ = s.applyChange(ctx, tx, cr, other)
			}
		}
		if _, err := s.applyChange(ctx, tx, cr, c); err != nil {
			return err
		}
		return errDryRun
	})
	if errors.Is(err, errDryRun) {
		return snapshot, nil
	}
	return nil, err
}

// callerDraft finds the caller's draft in a project environment.
func callerDraft(ctx context.Context, r store.Reader, project, env string, me store.Actor) (store.ChangeRequest, bool, error) {
	list, err := r.ListChangeRequests(ctx, store.ChangeRequestFilter{Project: project, Environment: env,
		States: []string{store.ChangeRequestDraft}, CreatedBy: me.Key, Limit: 1})
	if err != nil || len(list) == 0 {
		return store.ChangeRequest{Project: project, Environment: env}, false, err
	}
	return list[0], true, nil
}

// handleAddChanges adds one change or a list of them to the caller's draft
// for the environment, creating the draft if needed, and answers it.
func (s *Server) handleAddChanges(w http.ResponseWriter, r *http.Request) error {
	inputs, err := decodeChangeInputs(w, r)
	if err != nil {
		return err
	}
	ctx, project, env := r.Context(), r.PathValue("projectId"), r.PathValue("environment")
	if err := s.checkMayPropose(ctx, project); err != nil {
		return err
	}
	p := principalFrom(ctx)
	me := actorOf(p)
	var draft store.ChangeRequest
	err = s.view(ctx, func(rd store.Reader) error {
		if _, _, err := projectEnvironment(ctx, rd, project, env); err != nil {
			return err
		}
		cfg, err := rd.GetChangeRequestConfig(ctx, project, env)
		if err != nil {
			return err
		}
		if !cfg.Enabled {
			return apierr.New(apierr.BadRequest, "change requests are not enabled in environment %s of project %s; change the flags directly", env, project)
		}
		draft, _, err = callerDraft(ctx, rd, project, env, me)
		return err
	})
	if err != nil {
		return err
	}
	may := func(perm Permission) error { return s.allowedIn(ctx, p, project, env, perm) }
	changes := make([]store.Change, 0, len(inputs))
	for _, in := range inputs {
		c, err := in.change(p, may)
		if err == nil {
			c.Snapshot, err = s.prepareChange(ctx, draft, c, 0)
		}
		if err != nil {
			return err
		}
		draft.Changes = append(draft.Changes, c) // later changes see it in their dry run
		changes = append(changes, c)
	}
	var id int
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, found, err := callerDraft(ctx, tx, project, env, me)
		if err != nil {
			return nil, err
		}
		var events []store.Event
		if !found {
			cfg, err := tx.GetChangeRequestConfig(ctx, project, env)
			if err != nil {
				return nil, err
			}
			cr, err = tx.CreateChangeRequest(ctx, store.ChangeRequest{Project: project, Environment: env,
				State: store.ChangeRequestDraft, MinApprovals: cfg.RequiredApprovals, CreatedBy: me})
			if err != nil {
				return nil, err
			}
			events = append(events, crEvent("change-request-created", cr, nil))
		}
		for _, c := range changes {
			c.ChangeRequestID = cr.ID
			added, err := tx.AddChange(ctx, c)
			if err != nil {
				return nil, err
			}
			events = append(events, changeEvent("change-added", cr, &added, nil))
		}
		id = cr.ID
		return events, nil
	})
	if err != nil {
		return err
	}
	return s.writeChangeRequest(w, r, http.StatusOK, id)
}

// editableRequest reads the path's request for a change of its changes:
// it must be open and the caller its author.
func editableRequest(r *http.Request, rd store.Reader) (store.ChangeRequest, error) {
	id, err := pathInt(r, "changeRequestId")
	if err != nil {
		return store.ChangeRequest{}, err
	}
	cr, err := projectChangeRequest(r.Context(), rd, r.PathValue("projectId"), id)
	switch {
	case err != nil:
		return cr, err
	case !open(cr.State):
		return cr, apierr.New(apierr.BadRequest, "change request %d is %s; its changes can no longer change", cr.ID, cr.State)
	case !isAuthor(principalFrom(r.Context()), cr):
		return cr, apierr.New(apierr.NoAccess, "only the author of change request %d can change its changes", cr.ID)
	}
	return cr, nil
}

// pathChange finds the path's change in cr.
func pathChange(r *http.Request, cr store.ChangeRequest) (store.Change, error) {
	id, err := pathInt(r, "changeId")
	if err != nil {
		return store.Change{}, err
	}
	i := slices.IndexFunc(cr.Changes, func(c store.Change) bool { return c.ID == id })
	if i < 0 {
		return store.Change{}, apierr.New(apierr.NotFound, "change request %d has no change %d", cr.ID, id)
	}
	return cr.Changes[i], nil
}

// backToReview returns an Approved or Scheduled request to In review
// without approvals or schedule, after an edit.
func backToReview(ctx context.Context, tx store.Tx, cr *store.ChangeRequest) error {
	if cr.State != store.ChangeRequestApproved && cr.State != store.ChangeRequestScheduled {
		return nil
	}
	if err := tx.ClearApprovals(ctx, cr.ID); err != nil {
		return err
	}
	cr.State, cr.Schedule = store.ChangeRequestInReview, nil
	updated, err := tx.UpdateChangeRequest(ctx, *cr)
	*cr = updated
	return err
}

// handleEditChange replaces a change: the old one is removed and the new
// one gets a new id.
func (s *Server) handleEditChange(w http.ResponseWriter, r *http.Request) error {
	var in changeInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	var cr store.ChangeRequest
	var old store.Change
	err := s.view(ctx, func(rd store.Reader) (err error) {
		if cr, err = editableRequest(r, rd); err == nil {
			old, err = pathChange(r, cr)
		}
		return err
	})
	if err != nil {
		return err
	}
	if in.Feature == "" {
		in.Feature = old.Feature
	}
	p := principalFrom(ctx)
	c, err := in.change(p, func(perm Permission) error { return s.allowedIn(ctx, p, cr.Project, cr.Environment, perm) })
	if err != nil {
		return err
	}
	if c.Snapshot, err = s.prepareChange(ctx, cr, c, old.ID); err != nil {
		return err
	}
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, err := editableRequest(r, tx)
		if err != nil {
			return nil, err
		}
		if old, err = pathChange(r, cr); err != nil {
			return nil, err
		}
		if err := tx.DeleteChange(ctx, cr.ID, old.ID); err != nil {
			return nil, err
		}
		c.ChangeRequestID = cr.ID
		added, err := tx.AddChange(ctx, c)
		if err != nil {
			return nil, err
		}
		if err := backToReview(ctx, tx, &cr); err != nil {
			return nil, err
		}
		return []store.Event{changeEvent("change-edited", cr, &added, &old)}, nil
	})
	if err != nil {
		return err
	}
	return s.writeChangeRequest(w, r, http.StatusOK, cr.ID)
}

// handleDiscardChange removes a change and answers the request. A request
// without changes stays, as an empty draft or review.
func (s *Server) handleDiscardChange(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	var id int
	err := s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, err := editableRequest(r, tx)
		if err != nil {
			return nil, err
		}
		old, err := pathChange(r, cr)
		if err != nil {
			return nil, err
		}
		if err := tx.DeleteChange(ctx, cr.ID, old.ID); err != nil {
			return nil, err
		}
		if err := backToReview(ctx, tx, &cr); err != nil {
			return nil, err
		}
		id = cr.ID
		return []store.Event{changeEvent("change-discarded", cr, nil, &old)}, nil
	})
	if err != nil {
		return err
	}
	return s.writeChangeRequest(w, r, http.StatusOK, id)
}

// handleDeleteChangeRequest discards a request that was not applied.
func (s *Server) handleDeleteChangeRequest(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "changeRequestId")
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, err := projectChangeRequest(ctx, tx, r.PathValue("projectId"), id)
		switch {
		case err != nil:
			return nil, err
		case cr.State == store.ChangeRequestApplied:
			return nil, apierr.New(apierr.BadRequest, "change request %d was applied; it stays on record", id)
		case !isAuthor(principalFrom(ctx), cr):
			return nil, apierr.New(apierr.NoAccess, "only the author of change request %d can discard it", id)
		}
		if err := tx.DeleteChangeRequest(ctx, id); err != nil {
			return nil, err
		}
		return []store.Event{crEvent("change-request-discarded", cr, nil)}, nil
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// Comments.

func (s *Server) handleAddComment(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "changeRequestId")
	if err != nil {
		return err
	}
	var in struct {
		Text string `json:"text"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if strings.TrimSpace(in.Text) == "" {
		return apierr.Invalid("text", "text is required")
	}
	if err := checkText("text", in.Text, maxCommentLength); err != nil {
		return err
	}
	ctx := r.Context()
	var out crCommentJSON
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, err := projectChangeRequest(ctx, tx, r.PathValue("projectId"), id)
		if err != nil {
			return nil, err
		}
		c, err := tx.AddComment(ctx, id, store.Comment{Text: in.Text, By: actorOf(principalFrom(ctx))})
		if err != nil {
			return nil, err
		}
		out = crCommentJSON{ID: c.ID, Text: c.Text, CreatedBy: newCRViewer(ctx, tx).user(c.By), CreatedAt: c.CreatedAt}
		return []store.Event{commentEvent(cr, c)}, nil
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, out)
}

// commentEvent records a comment on cr.
func commentEvent(cr store.ChangeRequest, c store.Comment) store.Event {
	return store.Event{Type: "change-request-comment-added", Project: cr.Project, Environment: cr.Environment,
		Data: eventData(map[string]any{"changeRequestId": cr.ID, "commentId": c.ID, "text": c.Text})}
}

// State.

// stateInput is the body of PUT …/state.
type stateInput struct {
	State       string     `json:"state"`
	ScheduledAt *time.Time `json:"scheduledAt"`
	// Comment, when given, is added as a comment with the transition.
	Comment string `json:"comment"`
}

func (s *Server) handleChangeRequestState(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "changeRequestId")
	if err != nil {
		return err
	}
	var in stateInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	if err := checkText("comment", in.Comment, maxCommentLength); err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		cr, err := projectChangeRequest(ctx, tx, r.PathValue("projectId"), id)
		if err != nil {
			return nil, err
		}
		events, err := s.transition(ctx, tx, cr, in)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(in.Comment) != "" {
			c, err := tx.AddComment(ctx, id, store.Comment{Text: in.Comment, By: actorOf(principalFrom(ctx))})
			if err != nil {
				return nil, err
			}
			if len(events) == 0 { // otherwise the transition's event records it
				events = []store.Event{commentEvent(cr, c)}
			}
		}
		return events, nil
	})
	if err != nil {
		return err
	}
	return s.writeChangeRequest(w, r, http.StatusOK, id)
}

// transition moves cr to the state in asks for, if the caller may (see the
// state table in the file comment), and returns the events.
func (s *Server) transition(ctx context.Context, tx store.Tx, cr store.ChangeRequest, in stateInput) ([]store.Event, error) {
	p := principalFrom(ctx)
	before := cr
	from := cr.State
	refuse := func() ([]store.Event, error) {
		return nil, apierr.Invalid("state", "change request %d is %s; it cannot become %s", cr.ID, from, in.State)
	}
	save := func(typ string) ([]store.Event, error) {
		updated, err := tx.UpdateChangeRequest(ctx, cr)
		if err != nil {
			return nil, err
		}
		return []store.Event{crEvent(typ, updated, &before)}, nil
	}
	reviewer := func(perm Permission) error {
		if p.User == nil {
			return apierr.New(apierr.NoAccess, "API tokens cannot approve or reject change requests: a review must come from a person; "+
				"sign in, or use a personal access token")
		}
		if err := s.allowedIn(ctx, p, cr.Project, cr.Environment, perm); err != nil {
			return err
		}
		return notOwnWork(actorOf(p), cr)
	}
	switch in.State {
	case store.ChangeRequestDraft:
		if from != store.ChangeRequestDraft {
			return refuse()
		}
		return nil, nil
	case store.ChangeRequestInReview:
		if from != store.ChangeRequestDraft {
			return refuse()
		}
		if !isAuthor(p, cr) {
			return nil, apierr.New(apierr.NoAccess, "only the author of change request %d can send it to review", cr.ID)
		}
		// The project may have become protected since the draft began.
		sight, err := readSight(ctx, tx, p)
		if err != nil {
			return nil, err
		}
		if !sight.canPropose(cr.Project) {
			return nil, notProposer(cr.Project, sight)
		}
		if len(cr.Changes) == 0 {
			return nil, apierr.Invalid("state", "change request %d has no changes to review", cr.ID)
		}
		cr.State = store.ChangeRequestInReview
		return save("change-request-sent-to-review")
	case store.ChangeRequestApproved:
		if from != store.ChangeRequestInReview && from != store.ChangeRequestApproved {
			return refuse()
		}
		if err := reviewer(PermApproveChangeRequest); err != nil {
			return nil, err
		}
		err := tx.AddApproval(ctx, cr.ID, store.Review{By: actorOf(p)})
		if apierr.Is(err, apierr.NameExists) {
			return nil, apierr.New(apierr.Conflict, "you approved change request %d already", cr.ID)
		} else if err != nil {
			return nil, err
		}
		if len(cr.Approvals)+1 < cr.MinApprovals || from == store.ChangeRequestApproved {
			after, err := tx.GetChangeRequest(ctx, cr.ID)
			return []store.Event{crEvent("change-request-approval-added", after, &before)}, err
		}
		cr.State = store.ChangeRequestApproved
		cr.Approvals = append(cr.Approvals, store.Review{By: actorOf(p)})
		return save("change-request-approved")
	case store.ChangeRequestRejected:
		if from != store.ChangeRequestInReview && from != store.ChangeRequestApproved && from != store.ChangeRequestScheduled {
			return refuse()
		}
		if err := reviewer(PermApproveChangeRequest); err != nil {
			return nil, err
		}
		if err := tx.AddRejection(ctx, cr.ID, store.Review{By: actorOf(p)}); err != nil {
			return nil, err
		}
		cr.State, cr.Schedule = store.ChangeRequestRejected, nil
		return save("change-request-rejected")
	case store.ChangeRequestCancelled:
		if !open(from) {
			return refuse()
		}
		if !isAuthor(p, cr) {
			return nil, apierr.New(apierr.NoAccess, "only the author of change request %d can cancel it", cr.ID)
		}
		cr.State, cr.Schedule = store.ChangeRequestCancelled, nil
		return save("change-request-cancelled")
	case store.ChangeRequestApplied:
		if from != store.ChangeRequestApproved && from != store.ChangeRequestScheduled {
			return refuse()
		}
		if err := s.allowedIn(ctx, p, cr.Project, cr.Environment, PermApplyChangeRequest); err != nil {
			return nil, err
		}
		return s.applyChangeRequest(ctx, tx, cr)
	case store.ChangeRequestScheduled:
		if from != store.ChangeRequestApproved && from != store.ChangeRequestScheduled {
			return refuse()
		}
		if err := s.allowedIn(ctx, p, cr.Project, cr.Environment, PermApplyChangeRequest); err != nil {
			return nil, err
		}
		if in.ScheduledAt == nil {
			return nil, apierr.Invalid("scheduledAt", "scheduledAt, when to apply the change request, is required")
		}
		if !in.ScheduledAt.After(s.now()) {
			return nil, apierr.Invalid("scheduledAt", "scheduledAt must be in the future")
		}
		cr.State = store.ChangeRequestScheduled
		cr.Schedule = &store.ChangeRequestSchedule{At: in.ScheduledAt.UTC(), Status: store.SchedulePending}
		return save("change-request-scheduled")
	}
	return nil, apierr.Invalid("state", "state must be one of Draft, In review, Approved, Cancelled, Applied, Rejected, Scheduled; not %q", in.State)
}

// notOwnWork refuses a review of cr by me when I proposed it, or changed
// any of its changes (Admins may edit others' requests), or when it was
// proposed through an API token I created.
func notOwnWork(me store.Actor, cr store.ChangeRequest) error {
	if me.Key == cr.CreatedBy.Key {
		return apierr.New(apierr.NoAccess, "the author of change request %d cannot review it; another user must", cr.ID)
	}
	if me.UserID != 0 && cr.CreatedBy.UserID == me.UserID {
		return apierr.New(apierr.NoAccess, "change request %d was proposed through the API token %q, which you created, "+
			"so it counts as yours; another user must review it", cr.ID, cr.CreatedBy.Name)
	}
	for _, c := range cr.Changes {
		if c.CreatedBy.Key == me.Key || (me.UserID != 0 && c.CreatedBy.UserID == me.UserID) {
			return apierr.New(apierr.NoAccess, "you made change %d of change request %d, so you cannot review it; another user must", c.ID, cr.ID)
		}
	}
	return nil
}

// applyChangeRequest applies every change of cr, oldest first, in the
// transaction tx, and marks it Applied. Nothing is applied while a change
// conflicts (409): its author must edit or discard it first.
func (s *Server) applyChangeRequest(ctx context.Context, tx store.Tx, cr store.ChangeRequest) ([]store.Event, error) {
	if len(cr.Changes) == 0 {
		return nil, apierr.Invalid("state", "change request %d has no changes to apply", cr.ID)
	}
	for _, c := range cr.Changes {
		conflict, err := changeConflict(ctx, tx, cr, c)
		if err != nil {
			return nil, err
		}
		if conflict != "" {
			return nil, apierr.New(apierr.Conflict, "change %d (%s) of change request %d conflicts: %s; edit or discard it first",
				c.ID, describeChange(c), cr.ID, conflict)
		}
	}
	var events []store.Event
	for _, c := range cr.Changes {
		more, err := s.applyChange(ctx, tx, cr, c)
		if err != nil {
			var e *apierr.Error
			if errors.As(err, &e) {
				wrapped := *e
				wrapped.Message = "change " + strconv.Itoa(c.ID) + " (" + describeChange(c) + ") cannot be applied: " + e.Message
				return nil, &wrapped
			}
			return nil, err
		}
		events = append(events, more...)
	}
	before := cr
	cr.State = store.ChangeRequestApplied
	applied, err := tx.UpdateChangeRequest(ctx, cr)
	if err != nil {
		return nil, err
	}
	return append(events, crEvent("change-request-applied", applied, &before)), nil
}

func describeChange(c store.Change) string {
	if c.Feature == "" {
		return c.Action
	}
	return c.Action + " of " + c.Feature
}
