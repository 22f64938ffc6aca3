package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
)

// Events: reading the audit log. Writes record their events through
// Server.change; this area only lists and searches them.

func registerEvents(s *Server, m mux) {
	m.admin("GET /api/admin/events", PermRead, s.handleListEvents)
	m.admin("POST /api/admin/events/search", PermRead, s.handleSearchEvents)
	m.admin("GET /api/admin/events/{featureName}", PermRead, s.handleFeatureEvents)
	m.admin("GET /api/admin/search/events", PermRead, s.handleEventSearchQuery)
}

// eventJSON is an audit event as the admin API shows it: an Event
// record, with null for what an event does not have.
type eventJSON struct {
	ID              int64           `json:"id"`
	CreatedAt       time.Time       `json:"createdAt"`
	Type            string          `json:"type"`
	CreatedBy       string          `json:"createdBy"`
	CreatedByUserID *int            `json:"createdByUserId"`
	Environment     *string         `json:"environment"`
	Project         *string         `json:"project"`
	FeatureName     *string         `json:"featureName"`
	Data            json.RawMessage `json:"data"`
	PreData         json.RawMessage `json:"preData"`
	Tags            []store.Tag     `json:"tags"`
}

func eventResponse(e store.Event) eventJSON {
	out := eventJSON{
		ID: e.ID, CreatedAt: e.CreatedAt, Type: e.Type, CreatedBy: e.CreatedBy, Environment: nullable(e.Environment),
		Project: nullable(e.Project), FeatureName: nullable(e.FeatureName), Data: e.Data, PreData: e.PreData, Tags: e.Tags,
	}
	if e.CreatedByUserID != 0 {
		id := e.CreatedByUserID
		out.CreatedByUserID = &id
	}
	if out.Tags == nil {
		out.Tags = []store.Tag{}
	}
	return out
}

func eventResponses(list []store.Event) []eventJSON {
	out := make([]eventJSON, len(list))
	for i, e := range list {
		out[i] = eventResponse(e)
	}
	return out
}

// listEvents reads the events and their total under f (the total ignores
// Limit, Offset and the id bounds' paging), as the caller may see them:
// none of the private projects they are no member of, and the others
// redacted (see redactEvent).
func (s *Server) listEvents(r *http.Request, f store.EventFilter) (list []store.Event, total int64, err error) {
	ctx := r.Context()
	p := principalFrom(ctx)
	sight, err := s.sightOf(ctx)
	if err != nil {
		return nil, 0, err
	}
	f.ExceptProjects = sight.hidden()
	if f.Query != "" && !p.can(PermAdmin) {
		return s.searchEventsRedacted(r, p, f)
	}
	err = s.view(ctx, func(rd store.Reader) error {
		if list, err = rd.ListEvents(ctx, f); err != nil {
			return err
		}
		count := f
		count.BeforeID = 0
		total, err = rd.CountEvents(ctx, count)
		return err
	})
	for i, e := range list {
		list[i], _ = redactEvent(p, e)
	}
	return list, total, err
}

// searchEventsRedacted is listEvents with a query for a caller from whom
// some events' details may be hidden. The store matches the query against
// whole events, so a match on hidden text would tell what it is; here a
// hidden event matches only through its type and creator. That needs every
// match at once, so paging is done here.
func (s *Server) searchEventsRedacted(r *http.Request, p *Principal, f store.EventFilter) ([]store.Event, int64, error) {
	ctx := r.Context()
	all := f
	all.Limit, all.Offset, all.BeforeID = 0, 0, 0
	var found []store.Event
	if err := s.view(ctx, func(rd store.Reader) (err error) {
		found, err = rd.ListEvents(ctx, all)
		return err
	}); err != nil {
		return nil, 0, err
	}
	q := strings.ToLower(f.Query)
	var kept []store.Event
	for _, e := range found {
		e, hidden := redactEvent(p, e)
		if hidden && !strings.Contains(strings.ToLower(e.Type), q) && !strings.Contains(strings.ToLower(e.CreatedBy), q) {
			continue
		}
		kept = append(kept, e)
	}
	total := int64(len(kept))
	if f.BeforeID > 0 {
		page := kept[:0:0]
		for _, e := range kept {
			if e.ID < f.BeforeID {
				page = append(page, e)
			}
		}
		kept = page
	}
	kept = kept[min(f.Offset, len(kept)):]
	if f.Limit > 0 {
		kept = kept[:min(f.Limit, len(kept))]
	}
	return kept, total, nil
}

// hiddenText replaces what an event reader may not see.
const hiddenText = "[hidden]"

// redactEvent returns e as p may see it, and whether anything was hidden.
// The audit log keeps every event whole; readers see of a token event only
// what they could see of the token itself: API tokens' names and the first
// characters of their secrets are for those who may read API tokens (admin
// tokens' for Admins only), and a personal access token's description for
// Admins and its owner.
func redactEvent(p *Principal, e store.Event) (store.Event, bool) {
	var hide func(doc map[string]any) bool
	switch {
	case strings.HasPrefix(e.Type, "api-token-"):
		hide = func(doc map[string]any) bool {
			typ, _ := doc["type"].(string)
			if p.can(PermReadAPIToken) && (typ != store.TokenAdmin || p.can(PermAdmin)) {
				return false
			}
			for _, k := range []string{"tokenName", "username", "displayName", "alias", "secret"} {
				if v, ok := doc[k]; ok && v != nil {
					doc[k] = hiddenText
				}
			}
			return true
		}
	case strings.HasPrefix(e.Type, "pat-"):
		hide = func(doc map[string]any) bool {
			owner, _ := doc["userId"].(float64)
			if p.can(PermAdmin) || (p.UserID() != 0 && float64(p.UserID()) == owner) {
				return false
			}
			if _, ok := doc["description"]; ok {
				doc["description"] = hiddenText
			}
			return true
		}
	default:
		return e, false
	}
	hidden := false
	for _, data := range []*json.RawMessage{&e.Data, &e.PreData} {
		var doc map[string]any
		if len(*data) == 0 || json.Unmarshal(*data, &doc) != nil || doc == nil {
			continue
		}
		if hide(doc) {
			b, _ := json.Marshal(doc) // a decoded document encodes again
			*data, hidden = b, true
		}
	}
	return e, hidden
}

// handleListEvents answers the newest 100 events, or every event of the
// project given in ?project=, newest first (Unleash's deprecated getEvents).
func (s *Server) handleListEvents(w http.ResponseWriter, r *http.Request) error {
	f := store.EventFilter{Project: r.URL.Query().Get("project")}
	if f.Project == "" {
		f.Limit = 100
	}
	list, total, err := s.listEvents(r, f)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "events": eventResponses(list), "totalEvents": total})
}

func (s *Server) handleFeatureEvents(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("featureName")
	list, total, err := s.listEvents(r, store.EventFilter{Feature: name})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "toggleName": name, "events": eventResponses(list), "totalEvents": total})
}

// handleSearchEvents is POST /api/admin/events/search. type, project and
// feature match exactly; query matches type, creator and data ignoring
// case; limit is 1 to 100 (default 100). offset is the id of the event to
// start listing from: the answer holds that event and older ones, newest first, so the next page starts at the
// last id returned minus one. totalEvents counts every match.
func (s *Server) handleSearchEvents(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Type    string `json:"type"`
		Project string `json:"project"`
		Feature string `json:"feature"`
		Query   string `json:"query"`
		Limit   *int   `json:"limit"`
		Offset  *int64 `json:"offset"`
	}
	// An empty body searches everything.
	if err := httpx.DecodeJSON(w, r, &body, maxBody); err != nil && !errors.Is(err, httpx.ErrEmptyBody) {
		return err
	}
	f := store.EventFilter{Type: body.Type, Project: body.Project, Feature: body.Feature, Query: body.Query, Limit: 100}
	if f.Type != "" && !knownEventTypes[f.Type] {
		return apierr.Invalid("type", "%q is not an event type", f.Type)
	}
	if err := checkText("query", f.Query, 1000); err != nil {
		return err
	}
	if body.Limit != nil {
		if *body.Limit < 1 || *body.Limit > 100 {
			return apierr.Invalid("limit", "limit must be 1 to 100, not %d", *body.Limit)
		}
		f.Limit = *body.Limit
	}
	if body.Offset != nil {
		if *body.Offset < 0 {
			return apierr.Invalid("offset", "offset is an event id and must not be negative")
		}
		if *body.Offset > 0 {
			f.BeforeID = *body.Offset + 1
		}
	}
	list, total, err := s.listEvents(r, f)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"version": 1, "events": eventResponses(list), "totalEvents": total})
}

// handleEventSearchQuery is Unleash 8.2's GET /api/admin/search/events:
// filters in the query string as IS:<value> or IS_ANY_OF:<a>,<b> (type,
// project, feature, environment, createdBy as a user id, id), from and to
// as IS:<date>, query as free text, offset as a number of events to skip
// and limit (default 50, at most 1000). groupId is accepted and ignored:
// events are not grouped here. Answers {events, total}.
func (s *Server) handleEventSearchQuery(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := queryInt(q.Get("limit"), "limit", 50)
	if err != nil {
		return err
	}
	offset, err := queryInt(q.Get("offset"), "offset", 0)
	if err != nil {
		return err
	}
	if limit < 1 {
		return apierr.Invalid("limit", "limit must be at least 1")
	}
	limit = min(limit, 1000)
	m, err := parseEventMatcher(q)
	if err != nil {
		return err
	}
	f := store.EventFilter{Query: q.Get("query")}
	if err := checkText("query", f.Query, 1000); err != nil {
		return err
	}
	f.Type, f.Project, f.Feature = single(m.types), single(m.projects), single(m.features)
	var (
		list  []store.Event
		total int64
	)
	if m.needsScan() {
		all, _, err := s.listEvents(r, f)
		if err != nil {
			return err
		}
		for _, e := range all {
			if m.match(e) {
				list = append(list, e)
			}
		}
		total = int64(len(list))
		list = list[min(offset, len(list)):]
		list = list[:min(limit, len(list))]
	} else {
		f.Limit, f.Offset = limit, offset
		if list, total, err = s.listEvents(r, f); err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, map[string]any{"events": eventResponses(list), "total": total})
}

func queryInt(v, name string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, apierr.Invalid(name, "%s must be a non-negative integer, not %q", name, v)
	}
	return n, nil
}

// eventMatcher holds the query-string filters of the 8.2 search; empty
// lists do not filter.
type eventMatcher struct {
	types, projects, features, environments, createdBy, ids []string
	from, to                                                time.Time
}

// parseEventMatcher reads the IS:/IS_ANY_OF: filters.
func parseEventMatcher(q map[string][]string) (eventMatcher, error) {
	var m eventMatcher
	var err error
	for _, p := range []struct {
		name string
		dst  *[]string
	}{{"type", &m.types}, {"project", &m.projects}, {"feature", &m.features}, {"environment", &m.environments},
		{"createdBy", &m.createdBy}, {"id", &m.ids}} {
		if *p.dst, err = filterValues(p.name, first(q[p.name])); err != nil {
			return m, err
		}
	}
	for _, d := range []struct {
		name string
		dst  *time.Time
		add  time.Duration
	}{{"from", &m.from, 0}, {"to", &m.to, 24 * time.Hour}} {
		v := strings.TrimPrefix(first(q[d.name]), "IS:")
		if v == "" {
			continue
		}
		t, err := time.Parse("2006-01-02", v)
		if err != nil {
			return m, apierr.Invalid(d.name, "%s must be IS:<YYYY-MM-DD>, not %q", d.name, first(q[d.name]))
		}
		*d.dst = t.Add(d.add)
	}
	return m, nil
}

// filterOperatorRe matches an operator prefix such as IS_NOT:.
var filterOperatorRe = regexp.MustCompile(`^[A-Z_]+:`)

// filterValues reads IS:x or IS_ANY_OF:x,y (a bare value counts as IS).
func filterValues(name, v string) ([]string, error) {
	switch {
	case v == "":
		return nil, nil
	case strings.HasPrefix(v, "IS_ANY_OF:"):
		var out []string
		for _, x := range strings.Split(strings.TrimPrefix(v, "IS_ANY_OF:"), ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out, nil
	case strings.HasPrefix(v, "IS:"):
		return []string{strings.TrimPrefix(v, "IS:")}, nil
	case filterOperatorRe.MatchString(v):
		return nil, apierr.Invalid(name, "%s supports the operators IS and IS_ANY_OF, not %q", name, v)
	}
	return []string{v}, nil
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// single is the one value of a filter the store can apply itself.
func single(v []string) string {
	if len(v) == 1 {
		return v[0]
	}
	return ""
}

// needsScan reports whether filters beyond the store's remain.
func (m eventMatcher) needsScan() bool {
	return len(m.types) > 1 || len(m.projects) > 1 || len(m.features) > 1 || len(m.environments) > 0 ||
		len(m.createdBy) > 0 || len(m.ids) > 0 || !m.from.IsZero() || !m.to.IsZero()
}

func (m eventMatcher) match(e store.Event) bool {
	in := func(list []string, v string) bool { return len(list) == 0 || contains(list, v) }
	user := strconv.Itoa(e.CreatedByUserID)
	return in(m.types, e.Type) && in(m.projects, e.Project) && in(m.features, e.FeatureName) &&
		in(m.environments, e.Environment) && (in(m.createdBy, user) || contains(m.createdBy, e.CreatedBy)) &&
		in(m.ids, strconv.FormatInt(e.ID, 10)) &&
		(m.from.IsZero() || !e.CreatedAt.Before(m.from)) && (m.to.IsZero() || e.CreatedAt.Before(m.to))
}

// knownEventTypes are the event types Unleash documents, the values the search's
// type filter accepts.
var knownEventTypes = func() map[string]bool {
	known := make(map[string]bool, len(eventTypeNames))
	for _, t := range eventTypeNames {
		known[t] = true
	}
	return known
}()

var eventTypeNames = []string{
	"application-updated", "application-deleted", "feature-completed", "feature-uncompleted",
	"application-created", "feature-created", "feature-deleted", "feature-updated", "feature-metadata-updated",
	"feature-variants-updated", "feature-environment-variants-updated", "feature-project-change",
	"feature-archived", "feature-revived", "feature-import", "feature-tagged", "feature-tag-import",
	"feature-strategy-update", "feature-strategy-add", "feature-strategy-remove", "feature-type-updated",
	"strategy-order-changed", "drop-feature-tags", "feature-untagged", "feature-stale-on", "feature-stale-off",
	"drop-features", "feature-environment-enabled", "feature-environment-disabled", "strategy-created",
	"strategy-deleted", "strategy-deprecated", "strategy-reactivated", "strategy-updated", "strategy-import",
	"drop-strategies", "context-field-created", "context-field-updated", "context-field-deleted",
	"project-access-added", "project-access-user-roles-updated", "project-access-group-roles-updated",
	"project-access-user-roles-deleted", "project-access-group-roles-deleted", "project-access-updated",
	"project-created", "project-updated", "project-deleted", "project-import", "project-user-added",
	"project-user-removed", "project-user-role-changed", "project-group-role-changed", "project-group-added",
	"project-group-removed", "role-created", "role-updated", "role-deleted", "drop-projects", "tag-created",
	"tag-deleted", "tag-import", "drop-tags", "tag-type-created", "tag-type-deleted", "tag-type-updated",
	"tag-type-import", "drop-tag-types", "addon-config-created", "addon-config-updated", "addon-config-deleted",
	"db-pool-update", "user-created", "user-updated", "user-deleted", "drop-environments", "environment-import",
	"environment-created", "environment-updated", "environment-deleted", "segment-created", "segment-updated",
	"segment-deleted", "group-created", "group-updated", "group-deleted", "group-user-added",
	"group-user-removed", "setting-created", "setting-updated", "setting-deleted", "client-metrics",
	"client-register", "pat-created", "pat-deleted", "public-signup-token-created",
	"public-signup-token-user-added", "public-signup-token-updated", "change-request-created",
	"change-request-discarded", "change-added", "change-discarded", "change-edited", "change-request-rejected",
	"change-request-approved", "change-request-approval-added", "change-request-cancelled",
	"change-request-sent-to-review", "scheduled-change-request-executed", "change-request-applied",
	"change-request-scheduled", "change-request-scheduled-application-success",
	"change-request-scheduled-application-failure", "change-request-configuration-updated", "api-token-created",
	"api-token-updated", "api-token-deleted", "feature-link-added", "feature-link-updated", "feature-link-removed", "feature-favorited", "feature-unfavorited", "project-favorited",
	"project-unfavorited", "features-exported", "features-imported", "service-account-created",
	"service-account-deleted", "service-account-updated", "feature-potentially-stale-on",
	"feature-dependency-added", "feature-dependency-removed", "feature-dependencies-removed", "banner-created",
	"banner-updated", "banner-deleted", "project-environment-added", "project-environment-removed",
	"default-strategy-updated", "segment-import", "incoming-webhook-created", "incoming-webhook-updated",
	"incoming-webhook-deleted", "incoming-webhook-token-created", "incoming-webhook-token-updated",
	"incoming-webhook-token-deleted",
	// Ours: comments on change requests are audited too.
	"change-request-comment-added",
}
