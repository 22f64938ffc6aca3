package proxy

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/httpx"
)

// Proxy is one evaluation proxy. Create it with New, serve Handler, and call
// Run once to keep its configuration fresh and its metrics flowing.
type Proxy struct {
	cfg     Config
	log     *slog.Logger
	up      *upstream
	storage StorageProvider
	usage   *usage
	regs    *registrations
	// apps, set for an Edge scope (before Run), counts SDK reports per
	// application and environment; the scope then uploads bulk reports.
	apps *appUsage
	// ownName counts SDK reports that apps cannot hold under the node's
	// own application name (nil outside Edge mode).
	ownName prometheus.Counter
	prom    *promMetrics
	handler http.Handler
	oas     *oasDoc // nil unless EnableOAS

	// state is the configuration in use; nil until the proxy is ready.
	// Readers load it once per request and never lock.
	state atomic.Pointer[state]
	// installMu serialises writers of state (poller, bootstrap, backup).
	installMu sync.Mutex
	// refusal, when set, says why the proxy is not serving: the upstream
	// refused its token. Backups and bootstraps are not installed then.
	refusal atomic.Pointer[string]
	// backupKey is the storage key of this configuration (BackupKey).
	backupKey string

	engineOpts   engine.Options
	strategies   []string            // names announced when registering
	keys         map[string]struct{} // client keys
	serverTokens map[string]struct{} // expServerSideSdkConfig tokens
	keyHeader    string              // canonical form of ClientKeysHeaderName
	base         string              // normalised ProxyBasePath
	routeBase    string              // base in lower case, for routing
	started      time.Time
	running      atomic.Bool
	// streamTiming replaces the streaming timings in tests; nil means
	// defaultStreamTiming.
	streamTiming *streamTiming
	// installed, when set (before Run), is told of every configuration
	// installed: an Edge node derives the configurations of narrower
	// scopes from it.
	installed func(*clientapi.Features, source)
}

// source ranks where a configuration came from: a later source replaces an
// earlier one, never the other way round.
type source uint8

const (
	fromBackup source = iota + 1
	fromBootstrap
	fromUpstream
)

func (s source) String() string {
	switch s {
	case fromBackup:
		return "backup"
	case fromBootstrap:
		return "bootstrap"
	case fromUpstream:
		return "upstream"
	}
	return "none"
}

// state is one immutable configuration and what is derived from it.
type state struct {
	snap   *engine.Snapshot
	source source
	// features is the encoded payload for GET /proxy/client/features; it is
	// built only when server-side tokens are configured.
	features []byte
	// answers evaluates and encodes answers for this configuration.
	answers *answer.Writer
}

// New checks cfg and builds a proxy. It does no I/O: the backup is read and
// the upstream polled by Run.
func New(cfg Config) (*Proxy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if cfg.ServiceInstanceID == "" {
		cfg.ServiceInstanceID = generatedInstanceID()
	}
	log := cfg.Logger
	if log == nil {
		log = NewLogger(os.Stderr, cfg.UseJSONLogger, cfg.LogLevel)
	}
	storage := cfg.StorageProvider
	if storage == nil {
		storage = FileStorage{Dir: cfg.BackupDir}
	}
	p := &Proxy{
		cfg:          cfg,
		log:          log,
		up:           newUpstream(cfg, uuid.NewString()),
		storage:      storage,
		usage:        newUsage(time.Now),
		regs:         &registrations{},
		engineOpts:   engine.Options{CustomStrategies: cfg.CustomStrategies, DropSource: true},
		keys:         toSet(cfg.clientKeys()),
		serverTokens: toSet(nonBlank(cfg.ExpServerSideSDKConfig.Tokens)),
		keyHeader:    cfg.canonicalKeyHeader(),
		base:         cfg.ProxyBasePath,
		routeBase:    strings.ToLower(cfg.ProxyBasePath),
		started:      time.Now(),
		backupKey:    BackupKey(cfg),
	}
	p.strategies = append(engine.BuiltinStrategies(), slices.Sorted(maps.Keys(cfg.CustomStrategies))...)
	p.prom = newPromMetrics(p)
	if cfg.EnableOAS {
		doc, err := newOASDoc(p.base, cfg.ClientKeysHeaderName)
		if err != nil {
			return nil, err
		}
		p.oas = doc
	}
	httpMetrics, err := httpx.HTTPMetrics(p.prom.reg)
	if err != nil {
		return nil, err
	}
	p.handler = httpx.Chain(http.HandlerFunc(p.route),
		httpx.RequestID(),
		answer.CORSMiddleware(cfg.CORS),
		httpx.Recover(log),
		httpx.AccessLog(log),
		httpMetrics,
	)
	return p, nil
}

// generatedInstanceID mirrors the reference's "<user>-<host>-<random>" so
// that instances are told apart upstream.
func generatedInstanceID() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "proxy"
	}
	return "signalbox-proxy-" + host + "-" + uuid.NewString()[:8]
}

func toSet(list []string) map[string]struct{} {
	m := make(map[string]struct{}, len(list))
	for _, s := range list {
		m[s] = struct{}{}
	}
	return m
}

// Handler serves every endpoint of the proxy under ProxyBasePath.
func (p *Proxy) Handler() http.Handler { return p.handler }

// Ready reports whether the proxy holds a configuration.
func (p *Proxy) Ready() bool { return p.state.Load() != nil }

// NotReadyReason says why the proxy is not ready: that it has no
// configuration yet, or that the upstream refuses its token. It is empty
// when the proxy is ready.
func (p *Proxy) NotReadyReason() string {
	if p.Ready() {
		return ""
	}
	return p.unavailableText()
}

// unavailableText is the body of the 503 answered while the proxy is not
// ready.
func (p *Proxy) unavailableText() string {
	if r := p.refusal.Load(); r != nil {
		return "The proxy cannot answer requests: " + *r + ". Check SERVICE_API_TOKEN and SERVICE_URL.\n"
	}
	return notReadyText
}

// Config returns the configuration in use, defaults filled in.
func (p *Proxy) Config() Config { return p.cfg }

// install compiles payload and makes it the configuration in use, unless a
// better source already delivered one. It reports whether it did.
func (p *Proxy) install(payload *clientapi.Features, src source) bool {
	p.installMu.Lock()
	defer p.installMu.Unlock()
	if cur := p.state.Load(); cur != nil && cur.source > src {
		return false
	}
	if src != fromUpstream && p.refusal.Load() != nil {
		return false
	}
	payload = p.filter(payload)
	snap := engine.Compile(payload, p.engineOpts)
	st := &state{snap: snap, source: src, answers: answer.New(snap, p.cfg.AnswerCacheBytes)}
	if len(p.serverTokens) > 0 {
		b, err := json.Marshal(payload)
		if err != nil {
			p.log.Error("cannot encode the configuration for server-side SDKs", "err", err)
		}
		st.features = b
	}
	if w := st.snap.Warnings(); len(w) > 0 {
		p.log.Warn("configuration has parts that cannot be evaluated; they evaluate to off",
			"count", len(w), "first", w[0])
	}
	wasReady := p.state.Swap(st) != nil
	if p.installed != nil {
		p.installed(payload, src)
	}
	p.prom.configTime.SetToCurrentTime()
	if !wasReady {
		p.log.Info("proxy is ready", "source", src.String(), "flags", st.snap.Len())
	} else {
		p.log.Debug("configuration updated", "source", src.String(), "flags", st.snap.Len())
	}
	return true
}

// filter applies namePrefix and projectName locally as well, so the proxy
// knows only the flags it was configured for even when an upstream (or a
// backup written under other options) ignores the query filters.
func (p *Proxy) filter(f *clientapi.Features) *clientapi.Features {
	prefix, project := p.cfg.NamePrefix, p.cfg.ProjectName
	if prefix == "" && project == "" {
		return f
	}
	out := *f
	out.Features = make([]clientapi.Feature, 0, len(f.Features))
	for _, ft := range f.Features {
		if !strings.HasPrefix(ft.Name, prefix) || (project != "" && ft.Project != "" && ft.Project != project) {
			continue
		}
		out.Features = append(out.Features, ft)
	}
	return &out
}
