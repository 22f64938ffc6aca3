package migrate

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/store"
)

// Source is everything read from an Unleash instance, in Unleash's terms
// but already in the store's types where they match.
type Source struct {
	URL           string
	Environments  []store.Environment
	Projects      []sourceProject
	FeatureTypes  []store.FeatureType
	TagTypes      []store.TagType
	ContextFields []store.ContextField
	Segments      []store.Segment
	Strategies    []store.StrategyDefinition
	Flags         []sourceFlag
	Tokens        []sourceToken
	Users         []sourceUser
	// Groups, Grants (users' and groups' project roles) and ChangeRequests
	// (the environments that require them) where the source has them.
	Groups         []sourceGroup
	Grants         []sourceGrant
	ChangeRequests []store.ChangeRequestConfig
	// Skipped lists what is not carried over, with the reason.
	Skipped []Note
}

// Note is one object that is not carried over (or carried with a change),
// with the reason.
type Note struct {
	Object string
	Reason string
}

type sourceProject struct {
	store.Project
	// Environments enabled for the project, with their default strategy.
	Environments []store.ProjectEnvironment
}

type sourceFlag struct {
	store.Feature
	// Envs holds the state in each environment enabled for the project.
	Envs         []sourceFlagEnv
	Tags         []store.Tag
	Dependencies []store.Dependency
}

type sourceFlagEnv struct {
	store.FeatureEnvironment
	Strategies []store.Strategy
}

type sourceToken struct {
	Secret string
	store.APIToken
}

// sourceGrant is a project role held by a user or a group (by its source
// id; the other id is 0) and the role's name.
type sourceGrant struct {
	Project  string
	UserID   int
	GroupID  int
	RoleName string
}

// sourceGroup is a group with its members by their source ids.
type sourceGroup struct {
	SourceID int
	store.Group
	// RootRoleName names the root role members get; "" for none.
	RootRoleName string
	Members      []int
}

type sourceUser struct {
	SourceID int
	store.User
	RoleName string
}

// Wire forms of Unleash's admin API answers, only the fields that are read.
type (
	wireEnvironment struct {
		Name      string `json:"name"`
		Type      string `json:"type"`
		Enabled   bool   `json:"enabled"`
		Protected bool   `json:"protected"`
		SortOrder int    `json:"sortOrder"`
		// Visible is set in a project's list when the environment is
		// enabled for that project.
		Visible         *bool                   `json:"visible"`
		DefaultStrategy *store.StrategyTemplate `json:"defaultStrategy"`
	}
	wireProject struct {
		ID                string     `json:"id"`
		Name              string     `json:"name"`
		Description       string     `json:"description"`
		Mode              string     `json:"mode"`
		DefaultStickiness string     `json:"defaultStickiness"`
		FeatureLimit      *int       `json:"featureLimit"`
		CreatedAt         *time.Time `json:"createdAt"`
		ArchivedAt        *time.Time `json:"archivedAt"`
	}
	wireFeatureType struct {
		ID           string `json:"id"`
		Name         string `json:"name"`
		Description  string `json:"description"`
		LifetimeDays *int   `json:"lifetimeDays"`
	}
	wireTagType struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Icon        string `json:"icon"`
	}
	wireContextField struct {
		Name        string             `json:"name"`
		Description string             `json:"description"`
		Stickiness  bool               `json:"stickiness"`
		SortOrder   int                `json:"sortOrder"`
		LegalValues []store.LegalValue `json:"legalValues"`
		CreatedAt   *time.Time         `json:"createdAt"`
		Project     string             `json:"project"`
	}
	wireSegment struct {
		ID          int                    `json:"id"`
		Name        string                 `json:"name"`
		Description string                 `json:"description"`
		Project     string                 `json:"project"`
		Constraints []clientapi.Constraint `json:"constraints"`
		CreatedAt   *time.Time             `json:"createdAt"`
		CreatedBy   string                 `json:"createdBy"`
	}
	wireStrategyDefinition struct {
		Name        string                    `json:"name"`
		DisplayName string                    `json:"displayName"`
		Title       string                    `json:"title"`
		Description string                    `json:"description"`
		Editable    bool                      `json:"editable"`
		Deprecated  bool                      `json:"deprecated"`
		Parameters  []store.StrategyParameter `json:"parameters"`
	}
	wireStrategy struct {
		ID          string                 `json:"id"`
		Name        string                 `json:"name"`
		Title       string                 `json:"title"`
		Disabled    bool                   `json:"disabled"`
		SortOrder   int                    `json:"sortOrder"`
		Parameters  clientapi.Parameters   `json:"parameters"`
		Constraints []clientapi.Constraint `json:"constraints"`
		Segments    []int                  `json:"segments"`
		Variants    []clientapi.Variant    `json:"variants"`
	}
	wireFeatureEnv struct {
		Name       string              `json:"name"`
		Enabled    bool                `json:"enabled"`
		Strategies []wireStrategy      `json:"strategies"`
		Variants   []clientapi.Variant `json:"variants"`
	}
	wireDependency struct {
		Feature  string   `json:"feature"`
		Enabled  *bool    `json:"enabled"`
		Variants []string `json:"variants"`
	}
	wireFeature struct {
		Name           string              `json:"name"`
		Type           string              `json:"type"`
		Description    string              `json:"description"`
		Project        string              `json:"project"`
		Stale          bool                `json:"stale"`
		ImpressionData bool                `json:"impressionData"`
		Archived       bool                `json:"archived"`
		ArchivedAt     *time.Time          `json:"archivedAt"`
		CreatedAt      *time.Time          `json:"createdAt"`
		Environments   []wireFeatureEnv    `json:"environments"`
		Variants       []clientapi.Variant `json:"variants"`
		Dependencies   []wireDependency    `json:"dependencies"`
		Tags           []store.Tag         `json:"tags"`
	}
	wireToken struct {
		Secret      string     `json:"secret"`
		TokenName   string     `json:"tokenName"`
		Username    string     `json:"username"`
		Type        string     `json:"type"`
		Environment string     `json:"environment"`
		Project     string     `json:"project"`
		Projects    []string   `json:"projects"`
		ExpiresAt   *time.Time `json:"expiresAt"`
		CreatedAt   *time.Time `json:"createdAt"`
	}
	wireUser struct {
		ID          int        `json:"id"`
		Name        string     `json:"name"`
		Email       string     `json:"email"`
		Username    string     `json:"username"`
		RootRole    int        `json:"rootRole"`
		ImageURL    string     `json:"imageUrl"`
		AccountType string     `json:"accountType"`
		CreatedAt   *time.Time `json:"createdAt"`
		IsAPI       bool       `json:"isAPI"`
	}
	wireRole struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	}
)

func timeOr(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// reader fetches a Source.
type reader struct {
	c    *client
	logf func(string, ...any)
	src  *Source
	// rootRoles names the source's root roles by id, as its user admin
	// lists them.
	rootRoles map[int]string
}

func (r *reader) skip(object, format string, args ...any) {
	r.src.Skipped = append(r.src.Skipped, Note{Object: object, Reason: fmt.Sprintf(format, args...)})
}

// optional fetches an endpoint that some Unleash editions or versions do not
// have: a 404 is noted and is no error.
func (r *reader) optional(ctx context.Context, what, path string, dst any) (bool, error) {
	err := r.c.get(ctx, path, dst)
	if isNotFound(err) {
		r.skip(what, "this Unleash has no %s endpoint (404); nothing to carry", path)
		return false, nil
	}
	return err == nil, err
}

// fetch reads everything the migration carries.
func fetch(ctx context.Context, c *client, logf func(string, ...any)) (*Source, error) {
	r := &reader{c: c, logf: logf, src: &Source{URL: c.base}}
	steps := []struct {
		what string
		fn   func(context.Context) error
	}{
		{"environments", r.environments},
		{"projects", r.projects},
		{"flag types", r.featureTypes},
		{"tag types", r.tagTypes},
		{"context fields", r.contextFields},
		{"segments", r.segments},
		{"strategy types", r.strategyDefinitions},
		{"flags", r.flags},
		{"archived flags", r.archived},
		{"API tokens", r.tokens},
		{"users", r.users},
		{"groups and project roles", r.enterprise},
	}
	for _, s := range steps {
		if err := s.fn(ctx); err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.what, err)
		}
		logf("read %s", s.what)
	}
	return r.src, nil
}

func (r *reader) environments(ctx context.Context) error {
	var body struct {
		Environments []wireEnvironment `json:"environments"`
	}
	if err := r.c.get(ctx, "/api/admin/environments", &body); err != nil {
		return err
	}
	for _, e := range body.Environments {
		r.src.Environments = append(r.src.Environments, store.Environment{
			Name: e.Name, Type: e.Type, Enabled: e.Enabled, SortOrder: e.SortOrder, Protected: e.Protected,
		})
	}
	return nil
}

func (r *reader) projects(ctx context.Context) error {
	var body struct {
		Projects []wireProject `json:"projects"`
	}
	if err := r.c.get(ctx, "/api/admin/projects", &body); err != nil {
		return err
	}
	more, err := r.moreProjects(ctx, body.Projects)
	if err != nil {
		return err
	}
	for _, p := range append(body.Projects, more...) {
		if p.ArchivedAt != nil {
			r.skip("project "+p.ID, "archived projects are not carried")
			continue
		}
		sp := sourceProject{Project: store.Project{
			ID: p.ID, Name: p.Name, Description: p.Description, Mode: p.Mode,
			DefaultStickiness: p.DefaultStickiness, FeatureLimit: p.FeatureLimit, CreatedAt: timeOr(p.CreatedAt),
		}}
		if sp.Mode == "" {
			sp.Mode = "open"
		}
		if sp.DefaultStickiness == "" {
			sp.DefaultStickiness = "default"
		}
		var envs struct {
			Environments []wireEnvironment `json:"environments"`
		}
		if err := r.c.get(ctx, "/api/admin/environments/project/"+pathEscape(p.ID), &envs); err != nil {
			return err
		}
		for _, e := range envs.Environments {
			if e.Visible != nil && !*e.Visible {
				continue
			}
			pe := store.ProjectEnvironment{Project: p.ID, Environment: e.Name}
			if e.DefaultStrategy != nil && e.DefaultStrategy.Name != "" {
				ds := *e.DefaultStrategy
				pe.DefaultStrategy = &ds
			}
			sp.Environments = append(sp.Environments, pe)
		}
		r.src.Projects = append(r.src.Projects, sp)
	}
	sort.Slice(r.src.Projects, func(i, j int) bool { return r.src.Projects[i].ID < r.src.Projects[j].ID })
	return nil
}

// moreProjects finds the projects that /api/admin/projects leaves out: the
// open-source server lists only "default" there, whatever its database
// holds. Flags, segments and tokens name every project that matters; each
// one not listed is read from its overview.
func (r *reader) moreProjects(ctx context.Context, listed []wireProject) ([]wireProject, error) {
	known := map[string]bool{}
	for _, p := range listed {
		known[p.ID] = true
	}
	var ids []string
	note := func(id string) {
		if id != "" && id != "*" && !known[id] {
			known[id] = true
			ids = append(ids, id)
		}
	}
	const page = 100
	for _, archived := range []string{"IS:false", "IS:true"} {
		for offset := 0; ; offset += page {
			var body struct {
				Features []wireFeature `json:"features"`
			}
			q := url.Values{"archived": {archived}, "limit": {strconv.Itoa(page)}, "offset": {strconv.Itoa(offset)}}
			if err := r.c.get(ctx, "/api/admin/search/features?"+q.Encode(), &body); err != nil {
				if isNotFound(err) {
					break
				}
				return nil, err
			}
			for _, f := range body.Features {
				note(f.Project)
			}
			if len(body.Features) < page {
				break
			}
		}
	}
	var segs struct {
		Segments []wireSegment `json:"segments"`
	}
	if err := r.c.get(ctx, "/api/admin/segments", &segs); err != nil && !isNotFound(err) {
		return nil, err
	}
	for _, s := range segs.Segments {
		note(s.Project)
	}
	var toks struct {
		Tokens []wireToken `json:"tokens"`
	}
	if err := r.c.get(ctx, "/api/admin/api-tokens", &toks); err != nil {
		return nil, err
	}
	for _, t := range toks.Tokens {
		if len(t.Projects) == 0 {
			// Older servers give one project only, in this field; newer
			// ones also join several into it, with commas.
			note(t.Project)
		}
		for _, p := range t.Projects {
			note(p)
		}
	}
	var out []wireProject
	for _, id := range ids {
		var p wireProject
		if err := r.c.get(ctx, "/api/admin/projects/"+pathEscape(id)+"/overview", &p); err != nil {
			if isNotFound(err) {
				r.skip("project "+id, "it is named by flags, segments or tokens but Unleash does not show it")
				continue
			}
			return nil, err
		}
		p.ID = id
		out = append(out, p)
	}
	return out, nil
}

func (r *reader) featureTypes(ctx context.Context) error {
	var body struct {
		Types []wireFeatureType `json:"types"`
	}
	if err := r.c.get(ctx, "/api/admin/feature-types", &body); err != nil {
		return err
	}
	for _, t := range body.Types {
		r.src.FeatureTypes = append(r.src.FeatureTypes, store.FeatureType(t))
	}
	return nil
}

func (r *reader) tagTypes(ctx context.Context) error {
	var body struct {
		TagTypes []wireTagType `json:"tagTypes"`
	}
	if err := r.c.get(ctx, "/api/admin/tag-types", &body); err != nil {
		return err
	}
	for _, t := range body.TagTypes {
		r.src.TagTypes = append(r.src.TagTypes, store.TagType(t))
	}
	return nil
}

func (r *reader) contextFields(ctx context.Context) error {
	var body []wireContextField
	if err := r.c.get(ctx, "/api/admin/context", &body); err != nil {
		return err
	}
	for _, f := range body {
		if f.Project != "" {
			r.skip("context field "+f.Name, "project-scoped context fields become global ones")
		}
		r.src.ContextFields = append(r.src.ContextFields, store.ContextField{
			Name: f.Name, Description: f.Description, LegalValues: f.LegalValues,
			Stickiness: f.Stickiness, SortOrder: f.SortOrder, CreatedAt: timeOr(f.CreatedAt),
		})
	}
	return nil
}

func (r *reader) segments(ctx context.Context) error {
	var body struct {
		Segments []wireSegment `json:"segments"`
	}
	ok, err := r.optional(ctx, "segments", "/api/admin/segments", &body)
	if err != nil || !ok {
		return err
	}
	for _, s := range body.Segments {
		r.src.Segments = append(r.src.Segments, store.Segment{
			ID: s.ID, Name: s.Name, Description: s.Description, Project: s.Project,
			Constraints: orEmpty(s.Constraints), CreatedAt: timeOr(s.CreatedAt), CreatedBy: s.CreatedBy,
		})
	}
	sort.Slice(r.src.Segments, func(i, j int) bool { return r.src.Segments[i].ID < r.src.Segments[j].ID })
	return nil
}

func (r *reader) strategyDefinitions(ctx context.Context) error {
	var body struct {
		Strategies []wireStrategyDefinition `json:"strategies"`
	}
	if err := r.c.get(ctx, "/api/admin/strategies", &body); err != nil {
		return err
	}
	for _, d := range body.Strategies {
		title := d.Title
		if title == "" {
			title = d.DisplayName
		}
		params := d.Parameters
		if params == nil {
			params = []store.StrategyParameter{}
		}
		r.src.Strategies = append(r.src.Strategies, store.StrategyDefinition{
			Name: d.Name, Title: title, Description: d.Description, Parameters: params,
			Editable: d.Editable, Deprecated: d.Deprecated,
		})
	}
	return nil
}

func (r *reader) flags(ctx context.Context) error {
	for _, p := range r.src.Projects {
		var list struct {
			Features []struct {
				Name string `json:"name"`
			} `json:"features"`
		}
		if err := r.c.get(ctx, "/api/admin/projects/"+pathEscape(p.ID)+"/features", &list); err != nil {
			return err
		}
		for _, f := range list.Features {
			var wf wireFeature
			path := "/api/admin/projects/" + pathEscape(p.ID) + "/features/" + pathEscape(f.Name) + "?variantEnvironments=true"
			if err := r.c.get(ctx, path, &wf); err != nil {
				return err
			}
			if wf.Project == "" {
				wf.Project = p.ID
			}
			flag := r.flag(wf)
			// The flag's answer lists variants sorted by name; SDKs get
			// them in stored order, which decides who gets which variant.
			// The environment's own variants route keeps that order.
			for i, e := range flag.Envs {
				if len(e.Variants) < 2 {
					continue
				}
				var vs struct {
					Variants []clientapi.Variant `json:"variants"`
				}
				path := "/api/admin/projects/" + pathEscape(p.ID) + "/features/" + pathEscape(f.Name) + "/environments/" + pathEscape(e.Environment) + "/variants"
				if err := r.c.get(ctx, path, &vs); err != nil {
					if isNotFound(err) {
						r.skip("variants of "+f.Name+" in "+e.Environment, "their stored order could not be read (404); they are carried sorted by name, which may give users other variants")
						continue
					}
					return err
				}
				if len(vs.Variants) == len(e.Variants) {
					flag.Envs[i].Variants = vs.Variants
				}
			}
			// Tags are in the flag's answer from 5.x on; older servers
			// have them only here.
			if wf.Tags == nil {
				var tags struct {
					Tags []store.Tag `json:"tags"`
				}
				if err := r.c.get(ctx, "/api/admin/features/"+pathEscape(f.Name)+"/tags", &tags); err != nil && !isNotFound(err) {
					return err
				}
				flag.Tags = tags.Tags
			}
			r.src.Flags = append(r.src.Flags, flag)
		}
		r.logf("read %d flags of project %s", len(list.Features), p.ID)
	}
	return nil
}

func (r *reader) flag(wf wireFeature) sourceFlag {
	f := sourceFlag{Feature: store.Feature{
		Name: wf.Name, Project: wf.Project, Type: wf.Type, Description: wf.Description,
		Stale: wf.Stale, ImpressionData: wf.ImpressionData, CreatedAt: timeOr(wf.CreatedAt),
	}, Tags: wf.Tags}
	if f.Type == "" {
		f.Type = "release"
	}
	for _, e := range wf.Environments {
		fe := sourceFlagEnv{FeatureEnvironment: store.FeatureEnvironment{
			Feature: wf.Name, Environment: e.Name, Enabled: e.Enabled, Variants: orEmpty(e.Variants),
		}}
		if e.Variants == nil && len(wf.Variants) > 0 {
			// Before per-environment variants, one list served every
			// environment.
			fe.Variants = wf.Variants
		}
		for _, s := range e.Strategies {
			fe.Strategies = append(fe.Strategies, store.Strategy{
				ID: s.ID, Feature: wf.Name, Environment: e.Name, Name: s.Name, Title: s.Title,
				Disabled: s.Disabled, SortOrder: s.SortOrder, Parameters: orEmptyMap(s.Parameters),
				Constraints: orEmpty(s.Constraints), Segments: sortedInts(s.Segments), Variants: orEmpty(s.Variants),
			})
		}
		f.Envs = append(f.Envs, fe)
	}
	for _, d := range wf.Dependencies {
		dep := store.Dependency{Child: wf.Name, Parent: d.Feature, Enabled: d.Enabled == nil || *d.Enabled, Variants: d.Variants}
		if dep.Variants == nil {
			dep.Variants = []string{}
		}
		f.Dependencies = append(f.Dependencies, dep)
	}
	return f
}

// archived lists archived flags. Their configuration is not readable
// through the admin API once archived; they are carried as archived flags
// without strategies, which is all an SDK or a revive could need of them
// here.
func (r *reader) archived(ctx context.Context) error {
	const page = 100
	seen := 0
	for offset := 0; ; offset += page {
		var body struct {
			Features []wireFeature `json:"features"`
			Total    int           `json:"total"`
		}
		q := url.Values{"archived": {"IS:true"}, "limit": {strconv.Itoa(page)}, "offset": {strconv.Itoa(offset)}}
		ok, err := r.optional(ctx, "archived flags", "/api/admin/search/features?"+q.Encode(), &body)
		if err != nil || !ok {
			return err
		}
		for _, wf := range body.Features {
			if !projectKnown(r.src.Projects, wf.Project) {
				r.skip("archived flag "+wf.Name, "its project %q is not carried", wf.Project)
				continue
			}
			at := timeOr(wf.ArchivedAt)
			if at.IsZero() {
				at = time.Now().UTC()
			}
			f := sourceFlag{Feature: store.Feature{
				Name: wf.Name, Project: wf.Project, Type: wf.Type, Description: wf.Description,
				Stale: wf.Stale, ImpressionData: wf.ImpressionData, CreatedAt: timeOr(wf.CreatedAt), ArchivedAt: &at,
			}}
			if f.Type == "" {
				f.Type = "release"
			}
			r.src.Flags = append(r.src.Flags, f)
			seen++
		}
		if len(body.Features) < page || (body.Total > 0 && offset+page >= body.Total) {
			break
		}
	}
	if seen > 0 {
		r.skip(fmt.Sprintf("%d archived flags", seen), "carried as archived flags without their strategies, variants and tags: Unleash's admin API does not show the configuration of an archived flag")
	}
	return nil
}

func projectKnown(ps []sourceProject, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

func (r *reader) tokens(ctx context.Context) error {
	var body struct {
		Tokens []wireToken `json:"tokens"`
	}
	if err := r.c.get(ctx, "/api/admin/api-tokens", &body); err != nil {
		return err
	}
	for _, t := range body.Tokens {
		name := t.TokenName
		if name == "" {
			name = t.Username
		}
		if t.Secret == "" {
			r.skip("API token "+name, "Unleash did not show its secret (the token used here may lack the right to read secrets)")
			continue
		}
		if strings.HasSuffix(t.Secret, "…") {
			// A shown form, as Signalbox lists its tokens: the secret
			// itself is not kept there and cannot be copied.
			r.skip("API token "+name, "the source shows only the beginning of its secret, which cannot be copied")
			continue
		}
		typ := strings.ToLower(t.Type)
		switch typ {
		case "backend":
			typ = store.TokenClient
		case store.TokenClient, store.TokenFrontend, store.TokenAdmin:
		default:
			r.skip("API token "+name, "unknown token type %q", t.Type)
			continue
		}
		projects := t.Projects
		if len(projects) == 0 {
			projects = []string{t.Project}
		}
		if len(projects) == 0 || projects[0] == "" {
			projects = []string{"*"}
		}
		env := t.Environment
		if env == "" {
			env = "*"
		}
		r.src.Tokens = append(r.src.Tokens, sourceToken{Secret: t.Secret, APIToken: store.APIToken{
			SecretHash: store.HashSecret(t.Secret), Prefix: redact(t.Secret), TokenName: name, Type: typ,
			Projects: projects, Environment: env, ExpiresAt: t.ExpiresAt, CreatedAt: timeOr(t.CreatedAt),
		}})
	}
	return nil
}

// redact keeps the scope and four characters of a secret, as the server
// shows tokens in lists.
func redact(raw string) string {
	scope, secret, found := strings.Cut(raw, ".")
	if !found {
		scope, secret = "", raw
	}
	if len(secret) > 4 {
		secret = secret[:4]
	}
	if !found {
		return secret + "…"
	}
	return scope + "." + secret + "…"
}

func (r *reader) users(ctx context.Context) error {
	var body struct {
		Users     []wireUser `json:"users"`
		RootRoles []wireRole `json:"rootRoles"`
	}
	if err := r.c.get(ctx, "/api/admin/user-admin", &body); err != nil {
		return err
	}
	roles := map[int]string{}
	for _, ro := range body.RootRoles {
		roles[ro.ID] = ro.Name
	}
	r.rootRoles = roles
	for _, u := range body.Users {
		if u.IsAPI {
			continue
		}
		role := r.rootRoleName(u.RootRole)
		r.src.Users = append(r.src.Users, sourceUser{SourceID: u.ID, RoleName: role, User: store.User{
			Name: u.Name, Email: u.Email, Username: u.Username, ImageURL: u.ImageURL,
			AccountType: u.AccountType, CreatedAt: timeOr(u.CreatedAt),
		}})
	}
	if len(r.src.Users) > 0 {
		r.skip(fmt.Sprintf("passwords of %d users", len(r.src.Users)), "Unleash never shows password hashes; users sign in through SSO or set a password with a reset link")
	}
	return nil
}

// enterprise reads what only some Unleash editions have: groups with their
// members, project roles of users and groups, and change-request settings.
// An edition without them answers 404, which is noted, not an error.
func (r *reader) enterprise(ctx context.Context) error {
	if err := r.groups(ctx); err != nil {
		return err
	}
	for _, p := range r.src.Projects {
		if err := r.projectAccess(ctx, p.ID); err != nil {
			return err
		}
		if err := r.changeRequestSettings(ctx, p.ID); err != nil {
			return err
		}
	}
	return nil
}

func (r *reader) groups(ctx context.Context) error {
	var body struct {
		Groups []struct {
			ID          int      `json:"id"`
			Name        string   `json:"name"`
			Description *string  `json:"description"`
			MappingsSSO []string `json:"mappingsSSO"`
			RootRole    *int     `json:"rootRole"`
			Users       []struct {
				User struct {
					ID int `json:"id"`
				} `json:"user"`
			} `json:"users"`
		} `json:"groups"`
	}
	ok, err := r.optional(ctx, "groups", "/api/admin/groups", &body)
	if err != nil || !ok {
		return err
	}
	for _, g := range body.Groups {
		sg := sourceGroup{SourceID: g.ID, Group: store.Group{Name: g.Name, MappingsSSO: orEmpty(g.MappingsSSO)}}
		if g.Description != nil {
			sg.Description = *g.Description
		}
		if g.RootRole != nil && *g.RootRole != 0 {
			sg.RootRoleName = r.rootRoleName(*g.RootRole)
			if sg.RootRoleName == "" {
				sg.RootRoleName = fmt.Sprintf("role %d", *g.RootRole)
			}
		}
		for _, u := range g.Users {
			sg.Members = append(sg.Members, u.User.ID)
		}
		r.src.Groups = append(r.src.Groups, sg)
	}
	return nil
}

// rootRoleName names a root role of the source by its id: from the list
// the user admin answered, else Unleash's fixed ids of the built-in roles.
func (r *reader) rootRoleName(id int) string {
	if name := r.rootRoles[id]; name != "" {
		return name
	}
	return map[int]string{1: "Admin", 2: "Editor", 3: "Viewer"}[id]
}

func (r *reader) projectAccess(ctx context.Context, project string) error {
	var access struct {
		Roles []wireRole `json:"roles"`
		Users []struct {
			ID     int   `json:"id"`
			RoleID int   `json:"roleId"`
			Roles  []int `json:"roles"`
		} `json:"users"`
		Groups []struct {
			ID     int   `json:"id"`
			RoleID int   `json:"roleId"`
			Roles  []int `json:"roles"`
		} `json:"groups"`
	}
	ok, err := r.optional(ctx, "project roles of "+project, "/api/admin/projects/"+pathEscape(project)+"/access", &access)
	if err != nil || !ok {
		return err
	}
	names := map[int]string{}
	for _, ro := range access.Roles {
		names[ro.ID] = ro.Name
	}
	held := func(roleID int, roles []int) []int {
		if len(roles) == 0 && roleID != 0 {
			return []int{roleID}
		}
		return roles
	}
	for _, u := range access.Users {
		for _, id := range held(u.RoleID, u.Roles) {
			r.src.Grants = append(r.src.Grants, sourceGrant{Project: project, UserID: u.ID, RoleName: names[id]})
		}
	}
	for _, g := range access.Groups {
		for _, id := range held(g.RoleID, g.Roles) {
			r.src.Grants = append(r.src.Grants, sourceGrant{Project: project, GroupID: g.ID, RoleName: names[id]})
		}
	}
	return nil
}

func (r *reader) changeRequestSettings(ctx context.Context, project string) error {
	var crs []struct {
		Environment       string `json:"environment"`
		ChangeRequestsOn  bool   `json:"changeRequestEnabled"`
		RequiredApprovals int    `json:"requiredApprovals"`
	}
	ok, err := r.optional(ctx, "change-request settings of "+project, "/api/admin/projects/"+pathEscape(project)+"/change-requests/config", &crs)
	if err != nil || !ok {
		return err
	}
	for _, c := range crs {
		if c.ChangeRequestsOn {
			r.src.ChangeRequests = append(r.src.ChangeRequests, store.ChangeRequestConfig{
				Project: project, Environment: c.Environment, Enabled: true, RequiredApprovals: max(c.RequiredApprovals, 1)})
		}
	}
	return nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func orEmptyMap(p clientapi.Parameters) clientapi.Parameters {
	if p == nil {
		return clientapi.Parameters{}
	}
	return p
}

func sortedInts(s []int) []int {
	out := append([]int{}, s...)
	sort.Ints(out)
	return out
}
