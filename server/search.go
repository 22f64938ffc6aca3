package server

// Flag search (GET /api/admin/search/features): Unleash's filtered, sorted
// and paged list of flags, as its UI's flag table and project page use it.
// Every flag is read with a fixed number of queries (ListFeatureOverviews),
// then filtered, sorted and paged in memory, so a page of a list of
// thousands costs the same few queries as a short one.

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/store"
)

func registerSearch(s *Server, m mux) {
	m.admin("GET /api/admin/search/features", PermRead, s.handleSearchFeatures)
}

// Paging bounds of the flag search: Unleash's default page, and a largest
// page that still lets a client page through thousands of flags quickly.
const (
	searchDefaultLimit = 50
	searchMaxLimit     = 1000
)

// Lifecycle stages as Unleash names them.
const (
	stageInitial   = "initial"
	stagePreLive   = "pre-live"
	stageLive      = "live"
	stageCompleted = "completed"
	stageArchived  = "archived"
)

// searchFeature is Unleash's featureSearchResponseSchema.
type searchFeature struct {
	Name           string              `json:"name"`
	Type           string              `json:"type"`
	Description    string              `json:"description"`
	DependencyType *string             `json:"dependencyType"`
	Project        string              `json:"project"`
	Stale          bool                `json:"stale"`
	Favorite       bool                `json:"favorite"`
	ImpressionData bool                `json:"impressionData"`
	CreatedAt      time.Time           `json:"createdAt"`
	ArchivedAt     *time.Time          `json:"archivedAt"`
	CreatedBy      searchCreator       `json:"createdBy"`
	Environments   []searchEnvironment `json:"environments"`
	Segments       []string            `json:"segments"`
	Tags           []store.Tag         `json:"tags"`
	Lifecycle      searchLifecycle     `json:"lifecycle"`
}

type searchCreator struct {
	ID       int    `json:"id"`
	Name     string `json:"name"`
	ImageURL string `json:"imageUrl"`
}

type searchLifecycle struct {
	Stage          string    `json:"stage"`
	EnteredStageAt time.Time `json:"enteredStageAt"`
}

// searchEnvironment is Unleash's featureSearchEnvironmentSchema: a
// project list's environment row, named twice and with its flag.
type searchEnvironment struct {
	projectFeatureEnv
	Environment string `json:"environment"`
	FeatureName string `json:"featureName"`
}

// searchCandidate is a flag with what the filters and sorting look at.
type searchCandidate struct {
	store.FeatureOverview
	creatorID        int
	lifecycle        searchLifecycle
	potentiallyStale bool
	lastSeen         *time.Time
	favorite         bool
}

// searchOp is one operator filter, such as IS_ANY_OF:a,b.
type searchOp struct {
	op     string
	values []string
}

// parseSearchOp reads "OP:values" of parameter name, with the operators
// allowed. An empty parameter is nil: no filter.
func parseSearchOp(q url.Values, name string, allowed []string, splitValues bool) (*searchOp, error) {
	v := q.Get(name)
	if v == "" {
		return nil, nil
	}
	op, rest, ok := strings.Cut(v, ":")
	if !ok || !slices.Contains(allowed, op) {
		return nil, apierr.Invalid(name, "%s must be one of %s followed by a colon and values, not %q", name, strings.Join(allowed, ", "), v)
	}
	if err := checkText(name, rest, 1000); err != nil {
		return nil, err
	}
	var values []string
	if splitValues {
		for _, x := range strings.Split(rest, ",") {
			if x = strings.TrimSpace(x); x != "" {
				values = append(values, x)
			}
		}
	} else {
		values = []string{rest}
	}
	if len(values) == 0 {
		return nil, apierr.Invalid(name, "%s names no value", name)
	}
	return &searchOp{op: op, values: values}, nil
}

var (
	searchIsOps      = []string{"IS", "IS_NOT", "IS_ANY_OF", "IS_NONE_OF"}
	searchIncludeOps = []string{"INCLUDE", "DO_NOT_INCLUDE", "INCLUDE_ALL_OF", "INCLUDE_ANY_OF", "EXCLUDE_IF_ANY_OF", "EXCLUDE_ALL"}
	searchDateOps    = []string{"IS_BEFORE", "IS_ON_OR_AFTER"}
)

// matchIs applies an IS-family operator to one value of the flag.
func (o *searchOp) matchIs(v string) bool {
	if o == nil {
		return true
	}
	in := slices.Contains(o.values, v)
	if o.op == "IS_NOT" || o.op == "IS_NONE_OF" {
		return !in
	}
	return in
}

// matchInclude applies an INCLUDE-family operator to the set the flag has.
func (o *searchOp) matchInclude(have []string) bool {
	if o == nil {
		return true
	}
	n := 0
	for _, v := range o.values {
		if slices.Contains(have, v) {
			n++
		}
	}
	switch o.op {
	case "INCLUDE", "INCLUDE_ANY_OF":
		return n > 0
	case "INCLUDE_ALL_OF":
		return n == len(o.values)
	case "DO_NOT_INCLUDE", "EXCLUDE_IF_ANY_OF":
		return n == 0
	case "EXCLUDE_ALL":
		return n < len(o.values)
	}
	return false
}

// searchDate is an IS_BEFORE/IS_ON_OR_AFTER filter on a day (UTC).
type searchDate struct {
	before bool
	day    time.Time
}

func parseSearchDate(q url.Values, name string) (*searchDate, error) {
	o, err := parseSearchOp(q, name, searchDateOps, false)
	if err != nil || o == nil {
		return nil, err
	}
	day, err := time.Parse(time.DateOnly, o.values[0])
	if err != nil {
		return nil, apierr.Invalid(name, "%s needs a date as YYYY-MM-DD, not %q", name, o.values[0])
	}
	return &searchDate{before: o.op == "IS_BEFORE", day: day}, nil
}

func (d *searchDate) match(t *time.Time) bool {
	if d == nil {
		return true
	}
	if t == nil {
		return false
	}
	if d.before {
		return t.Before(d.day)
	}
	return !t.Before(d.day)
}

// searchFilters are the parsed query parameters of a flag search.
type searchFilters struct {
	queries                                       []string
	project, state, lifecycle, typ, createdBy     *searchOp
	tag, segment                                  *searchOp
	status                                        [][2]string // environment, "enabled" or "disabled"
	archived                                      bool
	createdAt, lastSeenAt                         *searchDate
	favoriteOnly, notFavoriteOnly, favoritesFirst bool
	sortBy                                        string
	desc                                          bool
	offset, limit                                 int
}

func parseSearchFilters(q url.Values) (searchFilters, error) {
	var f searchFilters
	var err error
	if query := q.Get("query"); query != "" {
		if err := checkText("query", query, 1000); err != nil {
			return f, err
		}
		for _, part := range strings.Split(query, ",") {
			if part = strings.ToLower(strings.TrimSpace(part)); part != "" {
				f.queries = append(f.queries, part)
			}
		}
	}
	for _, p := range []struct {
		name string
		dst  **searchOp
	}{{"project", &f.project}, {"state", &f.state}, {"lifecycle", &f.lifecycle}, {"type", &f.typ}, {"createdBy", &f.createdBy}} {
		if *p.dst, err = parseSearchOp(q, p.name, searchIsOps, true); err != nil {
			return f, err
		}
	}
	if f.segment, err = parseSearchOp(q, "segment", searchIncludeOps, true); err != nil {
		return f, err
	}
	if f.tag, err = parseSearchOp(q, "tag", searchIncludeOps, true); err != nil {
		return f, err
	}
	if f.tag != nil {
		for _, v := range f.tag.values {
			if typ, value, ok := strings.Cut(v, ":"); !ok || typ == "" || value == "" {
				return f, apierr.Invalid("tag", "a tag is type:value, not %q", v)
			}
		}
	}
	for _, st := range q["status"] {
		for _, one := range strings.Split(st, ",") {
			env, state, ok := strings.Cut(strings.TrimSpace(one), ":")
			if !ok || env == "" || (state != "enabled" && state != "disabled") {
				return f, apierr.Invalid("status", "status is environment:enabled or environment:disabled, not %q", one)
			}
			f.status = append(f.status, [2]string{env, state})
		}
	}
	switch a := q.Get("archived"); a {
	case "", "IS:false":
	case "IS:true":
		f.archived = true
	default:
		return f, apierr.Invalid("archived", "archived is IS:true or IS:false, not %q", a)
	}
	if f.lifecycle != nil && f.lifecycle.op == "IS" && f.lifecycle.values[0] == stageArchived && q.Get("archived") == "" {
		f.archived = true
	}
	if f.createdAt, err = parseSearchDate(q, "createdAt"); err != nil {
		return f, err
	}
	if f.lastSeenAt, err = parseSearchDate(q, "lastSeenAt"); err != nil {
		return f, err
	}
	f.favoritesFirst = q.Get("favoritesFirst") == "true"
	if fav, err := parseSearchOp(q, "favorite", []string{"IS", "IS_ANY_OF"}, true); err != nil {
		return f, err
	} else if fav != nil {
		for _, v := range fav.values {
			if v != "true" && v != "false" {
				return f, apierr.Invalid("favorite", "favorite is true or false, not %q", v)
			}
		}
		f.favoriteOnly = !slices.Contains(fav.values, "false")
		f.notFavoriteOnly = !slices.Contains(fav.values, "true")
	}
	f.sortBy = cmp.Or(q.Get("sortBy"), "createdAt")
	if !slices.Contains([]string{"name", "type", "project", "createdAt", "lastSeenAt", "stale", "lifecycle", "description"}, f.sortBy) && !strings.HasPrefix(f.sortBy, "environment:") {
		return f, apierr.Invalid("sortBy", "sortBy is one of name, type, project, createdAt, lastSeenAt, stale, lifecycle, description or environment:<name>, not %q", f.sortBy)
	}
	switch o := q.Get("sortOrder"); o {
	case "", "asc":
	case "desc":
		f.desc = true
	default:
		return f, apierr.Invalid("sortOrder", "sortOrder is asc or desc, not %q", o)
	}
	if f.offset, err = queryInt(q.Get("offset"), "offset", 0); err != nil {
		return f, err
	}
	if f.limit, err = queryInt(q.Get("limit"), "limit", searchDefaultLimit); err != nil {
		return f, err
	}
	if f.limit < 1 {
		return f, apierr.Invalid("limit", "limit must be at least 1")
	}
	f.limit = min(f.limit, searchMaxLimit)
	return f, nil
}

// match reports whether flag c passes every filter.
func (f *searchFilters) match(c *searchCandidate) bool {
	if (f.favoriteOnly && !c.favorite) || (f.notFavoriteOnly && c.favorite) {
		return false
	}
	if len(f.queries) > 0 && !slices.ContainsFunc(f.queries, c.matchesText) {
		return false
	}
	state := "active"
	if c.Stale {
		state = "stale"
	}
	if !f.project.matchIs(c.Project) || !f.typ.matchIs(c.Type) || !f.createdBy.matchIs(strconv.Itoa(c.creatorID)) {
		return false
	}
	if f.state != nil && !f.state.matchIs(state) && !(c.potentiallyStale && f.state.matchIs("potentially-stale") && f.state.op != "IS_NOT" && f.state.op != "IS_NONE_OF") {
		return false
	}
	if f.lifecycle != nil && !f.archived && !f.lifecycle.matchIs(c.lifecycle.Stage) {
		return false
	}
	if f.tag != nil {
		have := make([]string, len(c.Tags))
		for i, t := range c.Tags {
			have[i] = t.Type + ":" + t.Value
		}
		if !f.tag.matchInclude(have) {
			return false
		}
	}
	if !f.segment.matchInclude(c.Segments) {
		return false
	}
	if len(f.status) > 0 && !slices.ContainsFunc(f.status, func(st [2]string) bool {
		for _, e := range c.Environments {
			if e.Name == st[0] {
				return e.Enabled == (st[1] == "enabled")
			}
		}
		return false
	}) {
		return false
	}
	created := c.CreatedAt
	return f.createdAt.match(&created) && f.lastSeenAt.match(c.lastSeen)
}

// matchesText: the flag's name, description or one of its tags
// (type:value) contains q, ignoring case.
func (c *searchCandidate) matchesText(q string) bool {
	if strings.Contains(strings.ToLower(c.Name), q) || strings.Contains(strings.ToLower(c.Description), q) {
		return true
	}
	for _, t := range c.Tags {
		if strings.Contains(strings.ToLower(t.Type+":"+t.Value), q) {
			return true
		}
	}
	return false
}

// compare orders two flags by the sort field, then by name; favorites
// first when asked.
func (f *searchFilters) compare(a, b *searchCandidate) int {
	if f.favoritesFirst && a.favorite != b.favorite {
		if a.favorite {
			return -1
		}
		return 1
	}
	var c int
	switch f.sortBy {
	case "name":
	case "type":
		c = strings.Compare(a.Type, b.Type)
	case "project":
		c = strings.Compare(a.Project, b.Project)
	case "description":
		c = strings.Compare(a.Description, b.Description)
	case "createdAt":
		c = a.CreatedAt.Compare(b.CreatedAt)
	case "stale":
		c = cmp.Compare(boolInt(a.Stale), boolInt(b.Stale))
	case "lifecycle":
		c = cmp.Compare(stageRank(a.lifecycle.Stage), stageRank(b.lifecycle.Stage))
	case "lastSeenAt":
		c = compareTimes(a.lastSeen, b.lastSeen)
	default:
		env := strings.TrimPrefix(f.sortBy, "environment:")
		c = cmp.Compare(envEnabled(a, env), envEnabled(b, env))
	}
	if c == 0 {
		c = strings.Compare(a.Name, b.Name)
	}
	if f.desc {
		return -c
	}
	return c
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func stageRank(s string) int {
	return slices.Index([]string{stageInitial, stagePreLive, stageLive, stageCompleted, stageArchived}, s)
}

// compareTimes orders never (nil) before any time.
func compareTimes(a, b *time.Time) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return a.Compare(*b)
}

// envEnabled is 1 where the flag is on in env, 0 where off, -1 where its
// project lacks env.
func envEnabled(c *searchCandidate, env string) int {
	for _, e := range c.Environments {
		if e.Name == env {
			return boolInt(e.Enabled)
		}
	}
	return -1
}

// handleSearchFeatures is Unleash's searchFeatures: query (text in the
// name, description or a tag, several separated by commas), project,
// state, lifecycle, type and createdBy (a user id) with IS, IS_NOT,
// IS_ANY_OF and IS_NONE_OF; tag (type:value) and segment (a name) with
// INCLUDE, DO_NOT_INCLUDE, INCLUDE_ALL_OF, INCLUDE_ANY_OF,
// EXCLUDE_IF_ANY_OF and EXCLUDE_ALL; status as environment:enabled or
// environment:disabled (any of those given); createdAt and lastSeenAt with
// IS_BEFORE and IS_ON_OR_AFTER a date; archived IS:true for the archive.
// Sorted by sortBy (default createdAt) in sortOrder, then by name; paged
// by offset and limit. total counts every match.
func (s *Server) handleSearchFeatures(w http.ResponseWriter, r *http.Request) error {
	f, err := parseSearchFilters(r.URL.Query())
	if err != nil {
		return err
	}
	var (
		flags []store.FeatureOverview
		users []store.User
		types []store.FeatureType
		done  map[string]lifecycleCompletion
		favs  favorites
	)
	sight, err := s.sightOf(r.Context())
	if err != nil {
		return err
	}
	err = s.view(r.Context(), func(rd store.Reader) error {
		var err error
		if flags, err = rd.ListFeatureOverviews(r.Context(), f.archived); err != nil {
			return err
		}
		flags = filterSeen(sight, flags, func(fo store.FeatureOverview) string { return fo.Project })
		if types, err = rd.ListFeatureTypes(r.Context()); err != nil {
			return err
		}
		if done, err = readCompletions(r.Context(), rd); err != nil {
			return err
		}
		if favs, err = readFavorites(r.Context(), rd, principalFrom(r.Context()).UserID()); err != nil {
			return err
		}
		users, err = rd.ListUsers(r.Context(), store.UserFilter{})
		return err
	})
	if err != nil {
		return err
	}
	creators := creatorIndex(users)
	lifetimes := map[string]*int{}
	for _, t := range types {
		lifetimes[t.ID] = t.LifetimeDays
	}
	now := time.Now()
	matches := make([]*searchCandidate, 0, len(flags))
	for _, fl := range flags {
		var completed *lifecycleCompletion
		if d, ok := done[fl.Name]; ok {
			completed = &d
		}
		c := &searchCandidate{FeatureOverview: fl, lifecycle: currentStage(fl, completed), lastSeen: fl.LastSeenAt,
			favorite: slices.Contains(favs.Features, fl.Name)}
		if u, ok := creators[fl.CreatedBy]; ok {
			c.creatorID = u.ID
		}
		if days := lifetimes[fl.Type]; days != nil && !fl.Stale {
			c.potentiallyStale = fl.CreatedAt.AddDate(0, 0, *days).Before(now)
		}
		if f.match(c) {
			matches = append(matches, c)
		}
	}
	slices.SortFunc(matches, f.compare)
	total := len(matches)
	page := matches[min(f.offset, total):]
	page = page[:min(f.limit, len(page))]
	out := make([]searchFeature, len(page))
	for i, c := range page {
		out[i] = searchResponse(c, creators)
	}
	return writeJSON(w, http.StatusOK, map[string]any{"features": out, "total": total})
}

// creatorIndex finds the person behind a flag's createdBy, which holds the
// name the flag's creator signed changes with (username, else e-mail, else
// name).
func creatorIndex(users []store.User) map[string]store.User {
	idx := make(map[string]store.User, len(users))
	for _, u := range users {
		name := u.Username
		if name == "" {
			name = u.Email
		}
		if name == "" {
			name = u.Name
		}
		if _, taken := idx[name]; !taken && name != "" {
			idx[name] = u
		}
	}
	return idx
}

func searchResponse(c *searchCandidate, creators map[string]store.User) searchFeature {
	out := searchFeature{
		Name: c.Name, Type: c.Type, Description: c.Description, Project: c.Project,
		Stale: c.Stale, Favorite: c.favorite, ImpressionData: c.ImpressionData, CreatedAt: c.CreatedAt, ArchivedAt: c.ArchivedAt,
		CreatedBy:    searchCreator{ID: c.creatorID, Name: c.CreatedBy},
		Environments: make([]searchEnvironment, len(c.Environments)),
		Segments:     c.Segments, Tags: c.Tags, Lifecycle: c.lifecycle,
	}
	if u, ok := creators[c.CreatedBy]; ok {
		out.CreatedBy.Name = cmp.Or(u.Name, c.CreatedBy)
		out.CreatedBy.ImageURL = u.ImageURL
	}
	if c.IsChild {
		out.DependencyType = ptr("child")
	} else if c.IsParent {
		out.DependencyType = ptr("parent")
	}
	for i, e := range c.Environments {
		out.Environments[i] = searchEnvironment{
			projectFeatureEnv: projectFeatureEnv{
				Name: e.Name, Type: e.Type, Enabled: e.Enabled, SortOrder: e.SortOrder, VariantCount: e.Variants,
				LastSeenAt: e.LastSeenAt, HasStrategies: e.Strategies > 0, HasEnabledStrategies: e.EnabledStrategies > 0,
			},
			Environment: e.Name, FeatureName: c.Name,
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
