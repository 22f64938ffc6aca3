package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/buildinfo"
	"github.com/signalbox/signalbox/internal/httpx"
)

// Edge is a node in Edge mode: it serves the frontend and client APIs to
// SDKs holding any valid token of its upstream. Each token is validated
// once against the upstream's /edge/validate and then served from the
// snapshot of its scope (environment and projects). A scope is an ordinary
// Proxy following the upstream with one of the scope's tokens, so polling,
// streaming, backups and metrics uploads are the proxy's own.
type Edge struct {
	cfg     EdgeConfig
	log     *slog.Logger
	hc      *http.Client
	handler http.Handler
	reg     *prometheus.Registry
	// internalKey is the client key every scope proxy accepts; it never
	// leaves the process: requests reach a scope only through the node,
	// after their own token was checked.
	internalKey string
	keyHeader   string

	limiter  *rate.Limiter
	perAddr  *addrLimiter
	inflight singleflight.Group
	negative *negativeCache
	now      func() time.Time

	// view maps each token being served to its scope; requests read it
	// without locking, writers replace it whole under mu.
	view atomic.Pointer[map[string]*edgeServed]

	mu     sync.Mutex
	scopes map[string]*edgeScope // by scopeKey
	runCtx context.Context       // set by Run; scopes started before wait for it
	runs   sync.WaitGroup        // the Run of every scope proxy
	ready  chan struct{}         // closed when Run starts

	validations *prometheus.CounterVec
	// sdkOwnName and sdkDropped count SDK metric reports counted under the
	// node's own name (a scope's applications are full) and counts dropped
	// by the bounds of per-application usage.
	sdkOwnName, sdkDropped prometheus.Counter
	// bootstrapStamp tells whether the offline bootstrap file changed.
	bootstrapStamp string
	oas            *oasDoc // nil unless EnableOAS
	// pretrusted are the legacy keys served without the upstream's word.
	pretrusted map[string]bool
	// savedTokens is the token backup last written (guarded by mu).
	savedTokens string

	warnedPassThrough atomic.Bool
	streams           atomic.Int64  // open streams
	closing           chan struct{} // closed by CloseStreams
	closeOnce         sync.Once
	// streamers are the SDKs that streamed (edge_resume.go);
	// refusedLogged is when a stream refused at the limit was last logged
	// (Unix seconds).
	streamers     edgeStreamers
	refusedLogged atomic.Int64
}

// edgeServed is a token being served and its scope.
type edgeServed struct {
	info  edgeToken
	scope *edgeScope
}

// edgeScope is one environment and set of projects, with the proxy that
// follows the upstream for it.
type edgeScope struct {
	key   string
	info  edgeToken // Environment and Projects; Token is the upstream token
	p     *Proxy
	stop  context.CancelFunc
	ended chan struct{}

	// mu guards what narrowed scopes are derived from.
	mu         sync.Mutex
	last       *clientapi.Features
	lastSource source
	children   map[string]*edgeScope // narrowed scopes, by scope key

	// feed is the scope's revisions for streams and delta polls (nil for
	// narrowed scopes, which serve browser SDKs only).
	feed *deltaFeed
}

// NewEdge checks cfg and builds a node. It does no I/O; Run validates the
// configured tokens and keeps the scopes fresh.
func NewEdge(cfg EdgeConfig) (*Edge, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	log := cfg.Logger
	if log == nil {
		log = NewLogger(os.Stderr, cfg.UseJSONLogger, cfg.LogLevel)
		cfg.Logger = log
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	e := &Edge{
		cfg:         cfg,
		log:         log,
		hc:          &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()},
		reg:         prometheus.NewRegistry(),
		internalKey: "edge-internal." + hex.EncodeToString(key),
		keyHeader:   http.CanonicalHeaderKey(DefaultClientKeysHeaderName),
		limiter:     rate.NewLimiter(rate.Limit(cfg.ValidationsPerSecond), cfg.ValidationBurst),
		perAddr:     newAddrLimiter(cfg.AddressValidationsPerSecond, cfg.AddressValidationBurst, cfg.ValidationAddresses),
		negative:    newNegativeCache(cfg.MaxTokens, time.Minute),
		now:         time.Now,
		scopes:      map[string]*edgeScope{},
		ready:       make(chan struct{}),
		closing:     make(chan struct{}),
	}
	e.view.Store(&map[string]*edgeServed{})
	e.validations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "signalbox_edge_token_validations_total",
		Help: "Tokens looked up for SDK requests, by result (valid, unknown, cached_unknown, rate_limited, failed).",
	}, []string{"result"})
	e.sdkOwnName = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "signalbox_edge_sdk_metrics_own_name_total",
		Help: "SDK metric reports counted under the node's own application name: the scope held as many applications as it may, or the report's labels were invalid.",
	})
	e.sdkDropped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "signalbox_edge_sdk_metrics_dropped_total",
		Help: "SDK flag counts and registrations dropped by the bounds of per-application usage.",
	})
	e.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), e.validations, buildinfo.Gauge(),
		e.sdkOwnName, e.sdkDropped,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "signalbox_edge_tokens", Help: "Tokens being served."},
			func() float64 { return float64(len(*e.view.Load())) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "signalbox_edge_unknown_tokens_cached", Help: "Refused tokens remembered so they are not asked about again."},
			func() float64 { return float64(e.negative.len()) }),
	)
	if cfg.EnableOAS {
		doc, err := newOASDocFrom(edgeOpenAPIDoc, "Signalbox Edge", cfg.BasePath, DefaultClientKeysHeaderName)
		if err != nil {
			return nil, err
		}
		e.oas = doc
	}
	httpMetrics, err := httpx.HTTPMetrics(e.reg)
	if err != nil {
		return nil, err
	}
	e.handler = httpx.Chain(http.HandlerFunc(e.route),
		httpx.RequestID(),
		answer.CORSMiddleware(cfg.CORS),
		httpx.Recover(log),
		httpx.AccessLog(log),
		httpMetrics,
	)
	e.pretrusted = map[string]bool{}
	var trusted []edgeToken
	for _, t := range nonBlank(cfg.PretrustedTokens) {
		key, env, _ := splitPretrusted(t)
		e.pretrusted[key] = true
		trusted = append(trusted, edgeToken{Token: key, Type: tokenFrontend, Projects: []string{"*"}, Environment: env})
	}
	if cfg.Offline {
		e.serve(trusted)
		if err := e.startOffline(); err != nil {
			return nil, err
		}
	} else {
		// Read before anything is served: serving writes the file.
		saved := e.loadTokens()
		if len(saved) > 0 {
			e.log.Info("serving the tokens of the last run until the upstream confirms them", "count", len(saved))
		}
		if all := append(trusted, saved...); len(all) > 0 {
			e.serve(all)
		}
	}
	return e, nil
}

// Handler serves every endpoint of the node under BasePath.
func (e *Edge) Handler() http.Handler { return e.handler }

// Config returns the configuration in use, defaults filled in.
func (e *Edge) Config() EdgeConfig { return e.cfg }

// Run validates the configured tokens, re-validates every known token each
// refresh interval (a token the upstream no longer knows stops being
// served), and runs the scopes until ctx ends; then each scope uploads the
// metrics it holds before Run returns.
func (e *Edge) Run(ctx context.Context) error {
	e.mu.Lock()
	if e.runCtx != nil {
		e.mu.Unlock()
		return errors.New("edge: Run was already called")
	}
	e.runCtx = ctx
	for _, sc := range e.scopes {
		e.startScope(sc)
	}
	e.mu.Unlock()
	close(e.ready)

	if e.cfg.Offline {
		e.watchBootstrap(ctx)
	} else {
		if warm := nonBlank(e.cfg.Tokens); len(warm) > 0 {
			if err := e.learn(ctx, warm); err != nil {
				e.log.Warn("cannot validate the configured tokens yet; retrying each refresh", "err", err)
			}
		}
		if len(*e.view.Load()) > 0 {
			e.revalidate(ctx) // tokens of the last run the upstream dropped meanwhile
		}
		t := time.NewTicker(e.cfg.RefreshInterval)
	loop:
		for {
			select {
			case <-ctx.Done():
				break loop
			case <-t.C:
				e.revalidate(ctx)
			}
		}
		t.Stop()
	}
	e.runs.Wait()
	return nil
}

// learn validates tokens upstream and serves the valid ones.
func (e *Edge) learn(ctx context.Context, tokens []string) error {
	valid, err := e.validate(ctx, tokens)
	if err != nil {
		return err
	}
	now := e.now()
	ok := map[string]bool{}
	for _, t := range valid {
		ok[t.Token] = true
		e.negative.remove(t.Token)
	}
	for _, t := range tokens {
		if !ok[t] {
			e.negative.add(t, now)
		}
	}
	e.serve(valid)
	return nil
}

// revalidate asks about every token being served; those the upstream no
// longer knows are dropped (and their scope stopped when none is left).
func (e *Edge) revalidate(ctx context.Context) {
	cur := *e.view.Load()
	tokens := make([]string, 0, len(cur))
	for t := range cur {
		if !e.pretrusted[t] {
			tokens = append(tokens, t)
		}
	}
	if warm := nonBlank(e.cfg.Tokens); len(warm) > 0 {
		tokens = append(tokens, warm...)
	}
	if len(tokens) == 0 {
		return
	}
	sort.Strings(tokens)
	var valid []edgeToken
	for chunk := range slicesChunk(tokens, 1000) {
		v, err := e.validate(ctx, chunk)
		if err != nil {
			e.log.Warn("cannot re-validate tokens; serving them as before", "err", err)
			return
		}
		valid = append(valid, v...)
	}
	keep := map[string]bool{}
	for _, t := range valid {
		keep[t.Token] = true
	}
	var gone []string
	for t := range cur {
		if !keep[t] && !e.pretrusted[t] {
			gone = append(gone, t)
		}
	}
	now := e.now()
	for _, t := range gone {
		e.negative.add(t, now)
	}
	e.replace(valid, gone)
	if len(gone) > 0 {
		e.log.Info("tokens no longer valid upstream are not served", "count", len(gone))
	}
}

func slicesChunk(s []string, n int) func(func([]string) bool) {
	return func(yield func([]string) bool) {
		for len(s) > 0 {
			k := min(n, len(s))
			if !yield(s[:k]) {
				return
			}
			s = s[k:]
		}
	}
}

// serve adds valid tokens to those being served.
func (e *Edge) serve(valid []edgeToken) { e.replace(valid, nil) }

// owns reports whether t has a scope of its own, followed upstream with
// t: client tokens do (the upstream gives them flag configurations), and
// offline every token does. A frontend token is served from a scope of a
// client token that covers its environment and projects, as in Unleash
// Edge: the upstream gives frontend tokens no configuration to evaluate.
func (e *Edge) owns(t edgeToken) bool { return e.cfg.Offline || t.Type == tokenClient }

// replace adds or updates valid tokens and removes gone ones, then brings
// the scopes in line: a scope per set of owning tokens of one scope key
// (started when new, stopped when no owner is left, following the
// upstream with another owner when its own token is gone), and every token
// bound to the scope that serves it.
func (e *Edge) replace(valid []edgeToken, gone []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	cur := *e.view.Load()
	tokens := make(map[string]edgeToken, len(cur)+len(valid))
	for t, s := range cur {
		tokens[t] = s.info
	}
	for _, t := range gone {
		delete(tokens, t)
	}
	for _, t := range valid {
		if _, ok := tokens[t.Token]; !ok && len(tokens) >= e.cfg.MaxTokens {
			e.log.Warn("not serving a new token: the node serves as many tokens as it may", "max", e.cfg.MaxTokens, "token", redactToken(t.Token))
			continue
		}
		tokens[t.Token] = t
	}

	owners := map[string][]string{}
	for t, info := range tokens {
		if e.owns(info) {
			owners[info.scopeKey()] = append(owners[info.scopeKey()], t)
		}
	}
	for key, sc := range e.scopes {
		ts := owners[key]
		if len(ts) == 0 {
			e.stopScope(sc)
			delete(e.scopes, key)
			continue
		}
		if _, ok := tokens[sc.info.Token]; !ok {
			sort.Strings(ts)
			e.stopScope(sc)
			e.scopes[key] = e.newScope(tokens[ts[0]])
		}
	}
	for key, ts := range owners {
		if _, ok := e.scopes[key]; !ok {
			sort.Strings(ts)
			e.scopes[key] = e.newScope(tokens[ts[0]])
		}
	}

	next := make(map[string]*edgeServed, len(tokens))
	for t, info := range tokens {
		var sc *edgeScope
		if e.owns(info) {
			sc = e.scopes[info.scopeKey()]
		} else {
			sc = e.coveringLocked(info)
		}
		next[t] = &edgeServed{info: info, scope: sc}
	}
	e.view.Store(&next)
	e.saveTokens(tokens)
}

// coveringLocked finds the scope that serves a frontend token: one of the
// same environment whose projects include the token's, narrowed to the
// token's projects when it has more. nil when no client token of the node
// covers it. e.mu is held.
func (e *Edge) coveringLocked(t edgeToken) *edgeScope {
	var wide *edgeScope
	for _, sc := range e.scopes {
		if sc.info.Environment != t.Environment || !covers(sc.info.Projects, t.Projects) {
			continue
		}
		if sameProjects(sc.info.Projects, t.Projects) {
			return sc
		}
		if wide == nil || sc.key < wide.key {
			wide = sc
		}
	}
	if wide == nil {
		return nil
	}
	return e.narrowed(wide, t)
}

// covers reports whether a scope of projects outer serves every project of
// inner.
func covers(outer, inner []string) bool {
	if slices.Contains(outer, "*") {
		return true
	}
	for _, p := range inner {
		if p == "*" || !slices.Contains(outer, p) {
			return false
		}
	}
	return true
}

func sameProjects(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// narrowed returns parent's scope cut down to t's projects: a proxy that
// never polls, given the parent's flags of those projects whenever the
// parent installs a configuration, and counting usage with the parent so
// that its metrics go upstream once.
func (e *Edge) narrowed(parent *edgeScope, t edgeToken) *edgeScope {
	parent.mu.Lock()
	defer parent.mu.Unlock()
	key := t.scopeKey()
	if c, ok := parent.children[key]; ok {
		return c
	}
	info := edgeToken{Token: parent.info.Token, Type: parent.info.Type, Projects: slices.Clone(t.Projects), Environment: t.Environment}
	c := &edgeScope{key: key, info: info, ended: parent.ended}
	cfg := e.scopeConfig(parent.info.Token)
	cfg.ServiceURL = offlineUpstream
	p, err := New(cfg)
	if err != nil {
		panic("edge: narrowed scope configuration: " + err.Error())
	}
	p.usage, p.regs, p.apps, p.ownName = parent.p.usage, parent.p.regs, parent.p.apps, parent.p.ownName
	c.p = p
	if parent.last != nil {
		p.install(onlyProjects(parent.last, info.Projects), parent.lastSource)
	}
	if parent.children == nil {
		parent.children = map[string]*edgeScope{}
	}
	parent.children[key] = c
	return c
}

// newScope builds and, once Run has started, starts the proxy of t's scope.
// e.mu is held.
func (e *Edge) newScope(t edgeToken) *edgeScope {
	sc := &edgeScope{key: t.scopeKey(), info: t, ended: make(chan struct{}), feed: newDeltaFeed()}
	cfg := e.scopeConfig(t.Token)
	if e.cfg.Offline {
		cfg.ServiceURL = offlineUpstream
	}
	p, err := New(cfg)
	if err != nil {
		// The configuration is built here from checked options.
		panic("edge: scope configuration: " + err.Error())
	}
	p.installed = sc.installed
	p.apps = newAppUsage(t.Environment, time.Now, e.sdkDropped)
	p.ownName = e.sdkOwnName
	sc.p = p
	if e.runCtx != nil {
		e.startScope(sc)
	}
	return sc
}

// installed keeps the scope's latest configuration and hands the narrowed
// scopes their part of it.
func (sc *edgeScope) installed(payload *clientapi.Features, src source) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.last, sc.lastSource = payload, src
	sc.feed.publish(payload)
	for _, c := range sc.children {
		c.p.install(onlyProjects(payload, c.info.Projects), src)
	}
}

// scopeConfig is the proxy configuration that follows the upstream with
// token.
func (e *Edge) scopeConfig(token string) Config {
	c := e.cfg
	return Config{
		ServiceURL:             c.UpstreamURL + "/api",
		ServiceAPIToken:        token,
		ClientKeys:             []string{e.internalKey},
		ServiceAppName:         c.AppName,
		ServiceInstanceID:      c.InstanceID,
		RefreshInterval:        c.RefreshInterval,
		ServiceStreaming:       c.Streaming,
		MetricsInterval:        c.MetricsInterval,
		Logger:                 e.log,
		TrustProxy:             c.TrustProxy,
		BackupDir:              c.BackupDir,
		EnableAllEndpoint:      true,
		ExpServerSideSDKConfig: ExpServerSideSDKConfig{Tokens: []string{e.internalKey}},
		UpstreamTimeout:        c.UpstreamTimeout,
		SDKVersion:             c.SDKVersion,
		AnswerCacheBytes:       c.AnswerCacheBytes,
	}
}

// startScope runs the scope's proxy until the node stops or the scope is
// dropped. e.mu is held.
func (e *Edge) startScope(sc *edgeScope) {
	if sc.stop != nil {
		return
	}
	ctx, stop := context.WithCancel(e.runCtx)
	sc.stop = stop
	e.runs.Go(func() {
		defer close(sc.ended)
		if e.cfg.Offline {
			<-ctx.Done()
			return
		}
		if err := sc.p.Run(ctx); err != nil {
			e.log.Error("scope stopped", "environment", sc.info.Environment, "err", err)
		}
	})
}

// stopScope stops a scope's proxy (which uploads the metrics it holds).
func (e *Edge) stopScope(sc *edgeScope) {
	if sc.stop != nil {
		sc.stop()
	}
}

// lookup resolves an SDK's token: served already (never waiting on any
// budget), refused recently (costing none), or asked of the upstream now:
// one request per token however many SDKs wait for it, within the budget
// of the address of r's client (the zero Addr when unknown: one budget
// for all such clients) and then the node's shared budget.
func (e *Edge) lookup(ctx context.Context, token string, r *http.Request) (*edgeServed, int) {
	if s, ok := (*e.view.Load())[token]; ok {
		return s, 0
	}
	if e.cfg.Offline {
		return nil, http.StatusUnauthorized
	}
	if _, _, ok := splitToken(token); !ok || len(token) > 512 {
		e.validations.WithLabelValues("unknown").Inc()
		return nil, http.StatusUnauthorized
	}
	if e.negative.has(token, e.now()) {
		e.validations.WithLabelValues("cached_unknown").Inc()
		return nil, http.StatusUnauthorized
	}
	addr := e.cfg.TrustProxy.Addr(r.RemoteAddr, r.Header[xffHeader])
	if !e.perAddr.allow(addr, e.now()) || !e.limiter.Allow() {
		e.validations.WithLabelValues("rate_limited").Inc()
		return nil, http.StatusTooManyRequests
	}
	_, err, _ := e.inflight.Do(token, func() (any, error) {
		return nil, e.learn(context.WithoutCancel(ctx), []string{token})
	})
	if err != nil {
		e.validations.WithLabelValues("failed").Inc()
		e.log.Warn("cannot validate a token upstream", "token", redactToken(token), "err", err)
		return nil, http.StatusServiceUnavailable
	}
	if s, ok := (*e.view.Load())[token]; ok {
		e.validations.WithLabelValues("valid").Inc()
		return s, 0
	}
	e.validations.WithLabelValues("unknown").Inc()
	return nil, http.StatusUnauthorized
}

const xffHeader = "X-Forwarded-For"

// waitReady waits, bounded, for a new scope's first configuration.
func (e *Edge) waitReady(ctx context.Context, sc *edgeScope) bool {
	if sc.p.Ready() {
		return true
	}
	deadline := time.NewTimer(e.cfg.UpstreamTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-deadline.C:
			return sc.p.Ready()
		case <-sc.ended:
			return false
		case <-tick.C:
			if sc.p.Ready() {
				return true
			}
		}
	}
}

// Ready reports whether every scope holds a configuration.
func (e *Edge) Ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, sc := range e.scopes {
		if !sc.p.Ready() {
			return false
		}
	}
	return true
}

// tokenOf reads the SDK's token: the Authorization header, with or
// without "Bearer ".
func tokenOf(r *http.Request) string {
	v := strings.TrimSpace(r.Header.Get("Authorization"))
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		v = strings.TrimSpace(v[7:])
	}
	return v
}

// promHandler serves the node's Prometheus metrics.
func (e *Edge) promHandler() http.Handler {
	return promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{})
}
