package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
)

// Browser SDKs on other origins call the frontend API, so its answers carry
// CORS headers for the origins an admin allows (Unleash's "CORS origins"
// instance setting, POST /api/admin/ui-config/cors). Until an admin saves
// the setting, Config.FrontendAPIOrigins applies (default "*"). As in
// Unleash, "*" in the list, or an empty list, allows every origin. The CORS
// answers are the proxy's (answer.CORSMiddleware): preflights for
// /api/frontend and every path below it answer 204 with the allowed
// methods (GET, POST), whatever request headers the preflight asks for
// (Authorization, Content-Type, If-None-Match, the unleash-* headers),
// Max-Age, and ETag as an exposed header; actual answers, 401s included,
// carry Access-Control-Allow-Origin and the exposed ETag. An origin not
// allowed gets no CORS headers at all.
//
// The allowed origins are kept in memory and re-read only when the store
// revision moves (any audited change moves it, on this instance or on
// another sharing the database), so a frontend request reads no database.

func registerFrontendCORS(s *Server, m mux) {
	m.admin("GET /api/admin/ui-config", PermRead, s.handleGetUIConfig)
	m.admin("POST /api/admin/ui-config/cors", PermAdmin, s.handleSetCORS)
	// Preflights are answered by the CORS policy; they are not endpoints
	// of the API, so they are not recorded in the route table. An OPTIONS
	// request that is not a preflight gets 405.
	preflight := s.withFrontendCORS(httpx.MethodNotAllowed(http.MethodGet, http.MethodPost))
	m.Handle("OPTIONS /api/frontend", preflight)
	m.Handle("OPTIONS /api/frontend/{path...}", preflight)
}

const (
	// frontendSettingName is Unleash's name of the frontend settings.
	frontendSettingName = "unleash.frontend"
	// frontendCORSMaxAge is how long browsers may cache a preflight, in
	// seconds (Unleash's default).
	frontendCORSMaxAge = 86400
	// maxFrontendOrigins bounds the list an admin can store.
	maxFrontendOrigins = 1000
	maxOriginLength    = 1024
)

// frontendSettings is the stored setting and the body of POST
// /api/admin/ui-config/cors.
type frontendSettings struct {
	FrontendAPIOrigins []string `json:"frontendApiOrigins"`
}

// frontendSettingEvent is the data of the setting's events: its name and
// value, as Unleash writes them.
type frontendSettingEvent struct {
	ID string `json:"id"`
	frontendSettings
}

// checkOrigins validates origins as Unleash does: each is "*" or an origin
// exactly as browsers send it in the Origin header, scheme://host[:port]
// in lower case, without a default port, path, query or user. Surrounding
// spaces are trimmed and repeats dropped; order is kept.
func checkOrigins(origins []string) ([]string, error) {
	if len(origins) > maxFrontendOrigins {
		return nil, apierr.Invalid("frontendApiOrigins", "at most %d origins can be allowed, got %d", maxFrontendOrigins, len(origins))
	}
	out := make([]string, 0, len(origins))
	for i, o := range origins {
		o = strings.TrimSpace(o)
		if !validOrigin(o) {
			shown := o
			if len(shown) > 100 {
				shown = shown[:100] + "..."
			}
			return nil, apierr.Invalid(fmt.Sprintf("frontendApiOrigins[%d]", i),
				"invalid origin %q: write \"*\" or an origin as browsers send it, such as https://app.example.com or http://localhost:3000 (no path, no trailing slash)", shown)
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out, nil
}

func validOrigin(o string) bool {
	if o == "*" {
		return true
	}
	if len(o) > maxOriginLength || strings.ContainsAny(o, "*\\") {
		return false
	}
	for i := 0; i < len(o); i++ {
		if o[i] <= ' ' || o[i] >= 0x7f {
			return false
		}
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return false
	}
	if u.Opaque != "" || u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(u.Host, ":") {
		return false
	}
	if port := u.Port(); (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		return false
	}
	return o == u.Scheme+"://"+strings.ToLower(u.Host)
}

// frontendCORSCache holds the policy in use and the revision it was read at.
type frontendCORSCache struct {
	mu     sync.Mutex // serialises reloads
	cur    atomic.Pointer[frontendCORSState]
	failed bool // the last reload failed (logged once); under mu
}

type frontendCORSState struct {
	revision int64
	policy   *frontendCORSPolicy
}

// frontendCORSPolicy is one list of allowed origins and its middleware.
type frontendCORSPolicy struct {
	origins []string
	wrap    func(http.Handler) http.Handler
}

func newFrontendCORSPolicy(origins []string) *frontendCORSPolicy {
	return &frontendCORSPolicy{origins: origins, wrap: answer.CORSMiddleware(answer.CORS{
		Origin:         slices.Clone(origins),
		Methods:        []string{http.MethodGet, http.MethodPost},
		ExposedHeaders: []string{"ETag"},
		MaxAge:         frontendCORSMaxAge,
	})}
}

// defaultFrontendOrigins is the configured default: "*" when unset.
func (s *Server) defaultFrontendOrigins() []string {
	if s.cfg.FrontendAPIOrigins == nil {
		return []string{"*"}
	}
	return s.cfg.FrontendAPIOrigins
}

// frontendCORSPolicy returns the policy for the newest known revision,
// reading the setting once per revision. When the database does not
// answer, the policy in use stays (or the default applies) and the read is
// tried again on the next request.
func (s *Server) frontendCORSPolicy(ctx context.Context) *frontendCORSPolicy {
	c := &s.frontendCORS
	rev := s.revision.Load()
	if st := c.cur.Load(); st != nil && st.revision >= rev {
		return st.policy
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.cur.Load()
	if st != nil && st.revision >= rev {
		return st.policy
	}
	set, ok, err := s.loadFrontendSettings(ctx)
	if err != nil {
		if !c.failed {
			c.failed = true
			s.log.Warn("cannot read the frontend API's allowed origins; keeping those in use", "err", err)
		}
		if st != nil {
			return st.policy
		}
		return newFrontendCORSPolicy(s.defaultFrontendOrigins())
	}
	c.failed = false
	origins := s.defaultFrontendOrigins()
	if ok {
		origins = set.FrontendAPIOrigins
	}
	pol := newFrontendCORSPolicy(origins)
	if st != nil && slices.Equal(st.policy.origins, origins) {
		pol = st.policy // unchanged: handlers built for it stay valid
	}
	c.cur.Store(&frontendCORSState{revision: rev, policy: pol})
	return pol
}

// withFrontendCORS wraps a frontend API handler in the current policy. The
// wrapped handler is built once per policy, not per request.
func (s *Server) withFrontendCORS(next http.Handler) http.Handler {
	type built struct {
		policy *frontendCORSPolicy
		h      http.Handler
	}
	var cache atomic.Pointer[built]
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pol := s.frontendCORSPolicy(r.Context())
		b := cache.Load()
		if b == nil || b.policy != pol {
			b = &built{policy: pol, h: pol.wrap(next)}
			cache.Store(b)
		}
		b.h.ServeHTTP(w, r)
	})
}

// loadFrontendSettings returns the stored setting; ok is false when none
// was ever stored.
func (s *Server) loadFrontendSettings(ctx context.Context) (set frontendSettings, ok bool, err error) {
	err = s.view(ctx, func(rd store.Reader) error {
		st, err := rd.GetSetting(ctx, frontendSettingName)
		if apierr.Is(err, apierr.NotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		return json.Unmarshal(st.Value, &set)
	})
	if set.FrontendAPIOrigins == nil {
		set.FrontendAPIOrigins = []string{}
	}
	return set, ok, err
}

// handleSetCORS is Unleash's POST /api/admin/ui-config/cors: it replaces
// the frontend API's allowed origins. One setting-created or
// setting-updated event.
func (s *Server) handleSetCORS(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		FrontendAPIOrigins *[]string `json:"frontendApiOrigins"`
	}
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.FrontendAPIOrigins == nil {
		return apierr.Invalid("frontendApiOrigins", "frontendApiOrigins is required: a list of origins such as [\"https://app.example.com\"], or [\"*\"] for any")
	}
	origins, err := checkOrigins(*body.FrontendAPIOrigins)
	if err != nil {
		return err
	}
	set := frontendSettings{FrontendAPIOrigins: origins}
	value, err := json.Marshal(set)
	if err != nil {
		return err
	}
	ctx := r.Context()
	err = s.change(ctx, func(tx store.Tx) ([]store.Event, error) {
		return saveSetting(ctx, tx, frontendSettingName, value, frontendSettingEvent{ID: frontendSettingName, frontendSettings: set},
			func(stored json.RawMessage) json.RawMessage { return stored })
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// uiConfig is the part of Unleash's uiConfigSchema the server has: its
// required members and the frontend API's allowed origins.
type uiConfig struct {
	Version            string        `json:"version"`
	UnleashURL         string        `json:"unleashUrl"`
	BaseURIPath        string        `json:"baseUriPath"`
	VersionInfo        uiVersionInfo `json:"versionInfo"`
	FrontendAPIOrigins []string      `json:"frontendApiOrigins"`
}

type uiVersionInfo struct {
	Current  map[string]string `json:"current"`
	Latest   map[string]string `json:"latest"`
	IsLatest bool              `json:"isLatest"`
}

// handleGetUIConfig is Unleash's GET /api/admin/ui-config, reduced to what
// the server knows. frontendApiOrigins is the list in use: the stored
// setting, or the configured default.
func (s *Server) handleGetUIConfig(w http.ResponseWriter, r *http.Request) error {
	set, ok, err := s.loadFrontendSettings(r.Context())
	if err != nil {
		return err
	}
	origins := set.FrontendAPIOrigins
	if !ok {
		origins = s.defaultFrontendOrigins()
	}
	version := s.cfg.Version
	if version == "" {
		version = "dev"
	}
	base := s.publicBase(r)
	return writeJSON(w, http.StatusOK, uiConfig{
		Version:            version,
		UnleashURL:         base,
		VersionInfo:        uiVersionInfo{Current: map[string]string{"oss": version}, Latest: map[string]string{}, IsLatest: true},
		FrontendAPIOrigins: origins,
	})
}
