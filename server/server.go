package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/signalbox/signalbox/internal/apierr"
	"github.com/signalbox/signalbox/internal/buildinfo"
	"github.com/signalbox/signalbox/internal/clientip"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/store"
)

// Config configures a Server. Zero values take the documented defaults.
type Config struct {
	Log *slog.Logger
	// Version is reported by health and registration answers.
	Version string
	// RevisionPoll is how often the server re-reads the store's revision so
	// that changes made by other instances sharing the database reach its
	// caches. Default 1s. A store that announces writes (PostgreSQL)
	// delivers them at once; the poll then covers lost announcements.
	RevisionPoll time.Duration
	// MetricsFlush is how often buffered client metrics are written. Default 10s.
	MetricsFlush time.Duration
	// MetricsRetention is how long hourly client metrics are kept; older
	// hours are rolled up into daily totals, kept DailyMetricsRetention.
	// Default 48h (DefaultMetricsRetention).
	MetricsRetention time.Duration
	// SessionTTL is how long a login session lasts. Default 24h.
	SessionTTL time.Duration
	// SecureCookies marks session cookies Secure (behind HTTPS).
	SecureCookies bool
	// PublicURL is the address users reach the server at, such as
	// https://flags.example.com: an absolute http or https URL. SAML
	// sign-in derives its identifiers from it and needs it: it is never
	// taken from request headers.
	PublicURL string
	// FrontendAPIOrigins are the origins the frontend API answers browsers
	// from (CORS) until an admin saves the setting; "*" allows any, and
	// nil means ["*"]. Each is "*" or scheme://host[:port].
	FrontendAPIOrigins []string
	// TrustProxy says which hops' X-Forwarded-For headers are believed when
	// the server derives a client's address (see Server.clientIP). The zero
	// value trusts none: the socket peer is the client.
	TrustProxy clientip.Trust
	// Now is the clock; default time.Now.
	Now func() time.Time
	// StreamHeartbeat is how often an idle stream gets a comment, inside
	// the SDKs' 60 s read timeout. Default 20s.
	StreamHeartbeat time.Duration
	// MaxStreams bounds the concurrent streams; beyond it a stream request
	// gets 429 and the SDK polls. Default 10000.
	MaxStreams int
	// AdvertiseStreaming says which client polls are answered with
	// fetch-mode: streaming, which moves SDKs able to stream onto the
	// stream: AdvertiseStreamed (the default, for "") the instances that
	// held a stream on the cluster within the last day, AdvertiseAll every
	// one, AdvertiseOff none. While the server would refuse a stream (at
	// MaxStreams, shutting down) they get fetch-mode: polling instead.
	AdvertiseStreaming AdvertiseMode
	// AddonAllowedHosts lets webhooks reach internal receivers, which they
	// may not by default (addons_egress.go): host names, matched exactly
	// and then connected to whatever they resolve to, and IP addresses or
	// CIDR prefixes that may be connected to. See CheckAddonAllowedHosts.
	AddonAllowedHosts []string
}

// Server serves the APIs over one store.
type Server struct {
	cfg      Config
	log      *slog.Logger
	store    store.Store
	now      func() time.Time
	registry *prometheus.Registry
	handler  http.Handler
	// routeTable records every registered endpoint (see Routes).
	routeTable []Route

	// revision is the newest store revision this instance knows. Local
	// writes raise it at once; a poller picks up other instances' writes.
	revision atomic.Int64
	ready    atomic.Bool
	// diskFull is set while writes fail for lack of disk space (noteWrite).
	diskFull atomic.Bool

	clientCache *clientCache
	tokens      tokenCache
	metrics     *metricsBuffer
	logins      *loginLimiter
	// tokenChecks slows down guessing at reset and invite links
	// (link_guard.go).
	tokenChecks *loginLimiter
	usage       *prometheus.CounterVec
	// frontendCORS is the frontend API's CORS policy (frontend_cors.go).
	frontendCORS frontendCORSCache

	// deltas and streams serve the push APIs (delta.go, streaming.go).
	deltas  *deltaHub
	streams *streamHub
	// streamed remembers the SDKs that streamed (stream_resume.go).
	streamed *streamedClients

	// passwordChecks counts the bcrypt comparisons of sign-ins and
	// password changes.
	passwordChecks atomic.Int64

	// crossOrigin checks where browsers' writes come from.
	crossOrigin *http.CrossOriginProtection

	// addons sends addon deliveries (addons_delivery.go).
	addons *addonSender

	// playgroundSlots bounds each principal's advanced playground
	// requests in progress (playground.go).
	playgroundSlots playgroundSlots
}

// New builds a Server. It reads the store's revision once; call Run to
// start the background work (revision polling, metrics flushing).
func New(ctx context.Context, st store.Store, cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.RevisionPoll <= 0 {
		cfg.RevisionPoll = time.Second
	}
	if cfg.MetricsFlush <= 0 {
		cfg.MetricsFlush = 10 * time.Second
	}
	if cfg.MetricsRetention <= 0 {
		cfg.MetricsRetention = DefaultMetricsRetention
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StreamHeartbeat <= 0 {
		cfg.StreamHeartbeat = defaultStreamHeartbeat
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = defaultMaxStreams
	}
	mode, err := ParseAdvertiseMode(string(cfg.AdvertiseStreaming))
	if err != nil {
		return nil, fmt.Errorf("advertising streaming: %w", err)
	}
	cfg.AdvertiseStreaming = mode
	if cfg.FrontendAPIOrigins != nil {
		origins, err := checkOrigins(cfg.FrontendAPIOrigins)
		if err != nil {
			return nil, fmt.Errorf("frontend API origins: %w", err)
		}
		cfg.FrontendAPIOrigins = origins
	}
	if err := checkPublicURL(cfg.PublicURL); err != nil {
		return nil, err
	}
	egress, err := parseEgressPolicy(cfg.AddonAllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("addon allowed hosts: %w", err)
	}
	s := &Server{cfg: cfg, log: cfg.Log, store: st, now: cfg.Now, registry: prometheus.NewRegistry()}
	s.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.registry.MustRegister(buildinfo.Gauge())
	s.usage = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feature_toggle_usage_total", Help: "Flag evaluations reported by SDKs through client metrics.",
	}, []string{"toggle", "active", "appName"})
	s.registry.MustRegister(s.usage)
	s.clientCache = newClientCache()
	s.deltas, s.streams, s.streamed = newDeltaHub(), newStreamHub(), newStreamedClients()
	s.registerStreamMetrics()
	s.metrics = newMetricsBuffer()
	s.registry.MustRegister(s.metrics.dropped)
	s.logins = newLoginLimiter(cfg.Now)
	s.tokenChecks = newLoginLimiter(cfg.Now)
	s.crossOrigin = newCrossOriginProtection(cfg.PublicURL)
	s.addons = newAddonSender(egress)
	rev, err := st.Revision(ctx)
	if err != nil {
		return nil, err
	}
	s.revision.Store(rev)
	s.ready.Store(true)
	// SDKs that streamed before a restart are known from the first poll.
	if err := s.streamed.persist(ctx, st, cfg.Now()); err != nil {
		s.log.Warn("cannot read the SDKs that streamed; they are learnt again as they stream", "err", err)
	}
	h, err := s.routes()
	if err != nil {
		return nil, err
	}
	s.handler = h
	return s, nil
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Registry is the Prometheus registry the server reports to.
func (s *Server) Registry() *prometheus.Registry { return s.registry }

// Run follows the store revision (announced by the database where it can,
// and polled every RevisionPoll), flushes client metrics and applies due
// scheduled change requests until ctx ends, then writes the metrics still
// buffered.
func (s *Server) Run(ctx context.Context) error {
	defer s.startChangeRequestScheduler(ctx)()
	defer s.startAddonWorker(ctx)()
	streamedDone := make(chan struct{})
	go func() {
		defer close(streamedDone)
		s.runStreamedClients(ctx)
	}()
	defer func() { <-streamedDone }()
	defer s.startRetentionWorker(ctx)()
	poll := time.NewTicker(s.cfg.RevisionPoll)
	flush := time.NewTicker(s.cfg.MetricsFlush)
	register := time.NewTicker(min(registrationFlush, s.cfg.MetricsFlush))
	defer poll.Stop()
	defer flush.Stop()
	defer register.Stop()
	// Other instances' writes arrive as soon as they commit where the
	// database announces them, on a goroutine of their own so that a slow
	// metrics flush never holds them up; the poll stays as the fallback
	// for announcements lost while the listening connection was down.
	if w, ok := s.store.(store.RevisionWatcher); ok {
		announced, err := w.WatchRevisions(ctx)
		if err != nil {
			s.log.Warn("cannot watch the database for other instances' changes; polling the revision only", "err", err)
		}
		if announced != nil {
			go func() {
				for rev := range announced {
					s.raiseRevision(rev)
				}
			}()
		}
	}
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := s.FlushMetrics(fctx)
			cancel()
			return err
		case <-poll.C:
			s.refreshRevision(ctx)
		case <-register.C:
			if err := s.FlushRegistrations(ctx); err != nil && !errors.Is(err, context.Canceled) {
				s.log.Warn("writing client registrations failed; they stay buffered", "err", err)
			}
		case <-s.metrics.regSoon:
			if err := s.FlushRegistrations(ctx); err != nil && !errors.Is(err, context.Canceled) {
				s.log.Warn("writing client registrations failed; they stay buffered", "err", err)
			}
		case <-flush.C:
			if err := s.FlushMetrics(ctx); err != nil && !errors.Is(err, context.Canceled) {
				s.log.Warn("writing client metrics failed; they stay buffered", "err", err)
			}
		}
	}
}

// refreshRevision reads the store's revision; readiness follows whether the
// database answers.
func (s *Server) refreshRevision(ctx context.Context) {
	rev, err := s.store.Revision(ctx)
	if err != nil {
		if s.ready.Swap(false) {
			s.log.Error("database is not answering", "err", err)
		}
		return
	}
	if !s.ready.Swap(true) {
		s.log.Info("database answers again")
		// Streams waiting for a change they could not read bring
		// themselves up to date now.
		s.streams.wake()
	}
	s.raiseRevision(rev)
}

// raiseRevision moves the known revision forward, never back.
func (s *Server) raiseRevision(rev int64) {
	for {
		cur := s.revision.Load()
		if rev <= cur {
			return
		}
		if s.revision.CompareAndSwap(cur, rev) {
			s.streams.wake()
			return
		}
	}
}

func (s *Server) prometheusHandler() http.Handler {
	return promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{})
}

func (s *Server) middleware(mux http.Handler) (http.Handler, error) {
	metrics, err := httpx.HTTPMetrics(s.registry)
	if err != nil {
		return nil, err
	}
	return httpx.Chain(mux, httpx.RequestID(), s.securityHeaders, httpx.Recover(s.log), httpx.AccessLog(s.log), metrics, s.rejectNUL, httpx.JSONMisses()), nil
}

// rejectNUL refuses paths with a NUL character (%00) before any handler
// sees them: no name may contain one, and PostgreSQL refuses them in text.
func (s *Server) rejectNUL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.ContainsRune(r.URL.Path, 0) {
			s.writeError(w, r, apierr.New(apierr.BadRequest, "the path must not contain NUL characters"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
