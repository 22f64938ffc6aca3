package proxy

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/signalbox/signalbox/answer"
	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/clientip"
)

// Defaults of the options, as the reference proxy has them.
const (
	DefaultPort                 = 3000
	DefaultAppName              = "service-proxy"
	DefaultRefreshInterval      = 5 * time.Second
	DefaultMetricsInterval      = 30 * time.Second
	DefaultClientKeysHeaderName = "authorization"
	DefaultLogLevel             = "warn"
	DefaultCORSMaxAge           = answer.DefaultCORSMaxAge
	DefaultMaxBodyBytes         = 1 << 20
	DefaultUpstreamTimeout      = 10 * time.Second
)

// Config holds every option of the proxy. The zero value of an optional
// field means its default; only ServiceURL, ServiceAPIToken and ClientKeys
// (or its alias ProxySecrets) are required. Field comments name the option
// of the reference proxy and the environment variable ConfigFromEnv reads.
type Config struct {
	// ServiceURL is the upstream client API base (serviceUrl, SERVICE_URL),
	// e.g. http://host:4242/api; the proxy polls ServiceURL/client/features.
	ServiceURL string
	// ServiceAPIToken is the client API token sent upstream
	// (serviceApiToken, SERVICE_API_TOKEN). It is never a client key.
	ServiceAPIToken string
	// ClientKeys are the keys callers must send (clientKeys,
	// SERVICE_PROXY_CLIENT_KEYS).
	ClientKeys []string
	// ProxySecrets is the deprecated alias of ClientKeys (proxySecrets,
	// SERVICE_PROXY_SECRETS); it is used only when ClientKeys is empty.
	ProxySecrets []string
	// Port is the listening port (PORT or PROXY_PORT, default 3000). The
	// proxy itself does not listen; the command that embeds it does.
	Port int
	// Host is the listening address (HTTP_HOST, default every interface);
	// like Port it is read by the command that embeds the proxy. Not an
	// option of the reference proxy, which always listens everywhere.
	Host string
	// ProxyBasePath prefixes every path (proxyBasePath, PROXY_BASE_PATH):
	// "base/path" serves at /base/path/proxy.
	ProxyBasePath string
	// ServiceAppName names the proxy upstream and is the context's default
	// appName (serviceAppName, SERVICE_APP_NAME, default service-proxy).
	ServiceAppName string
	// ServiceInstanceID identifies this instance upstream
	// (serviceInstanceId, SERVICE_INSTANCE_ID); generated when empty.
	ServiceInstanceID string
	// RefreshInterval is the time between upstream polls (refreshInterval,
	// SERVICE_FETCH_INTERVAL in ms, default 5s).
	RefreshInterval time.Duration
	// ServiceStreaming says how the proxy follows the upstream's changes
	// (SERVICE_STREAMING): true streams them from ServiceURL/client/streaming
	// (Server-Sent Events, as the SDKs' streaming mode), false only polls,
	// and nil polls until a poll answer carries the header
	// "fetch-mode: streaming". A failing stream falls back to polling as
	// the SDKs do (see stream.go). Streams cannot filter by tag, so with
	// Tags set the proxy only polls.
	ServiceStreaming *bool
	// MetricsInterval is the time between metrics uploads (metricsInterval,
	// SERVICE_METRICS_INTERVAL in ms, default 30s).
	MetricsInterval time.Duration
	// MetricsJitter is the largest random delay added to each metrics
	// interval (metricsJitter, SERVICE_METRICS_JITTER in ms, default 0).
	MetricsJitter time.Duration
	// Environment, when set, is the context's environment and callers
	// cannot override it (environment, SERVICE_ENVIRONMENT).
	Environment string
	// ProjectName limits the proxy to one project's flags (projectName,
	// SERVICE_PROJECT_NAME).
	ProjectName string
	// Logger replaces the default logger (logger). UseJSONLogger and
	// LogLevel apply only to the default one.
	Logger *slog.Logger
	// UseJSONLogger makes the default logger write JSON lines
	// (useJsonLogger, JSON_LOGGER).
	UseJSONLogger bool
	// LogLevel is debug, info, warn, error or fatal (logLevel, LOG_LEVEL,
	// default warn).
	LogLevel string
	// CustomStrategies evaluate strategies the engine does not know, by
	// name (customStrategies).
	CustomStrategies map[string]engine.CustomStrategy
	// CustomStrategiesFile is the script file the command loads into
	// CustomStrategies (SERVICE_CUSTOM_STRATEGIES_FILE). The proxy itself
	// does not read it.
	CustomStrategiesFile string
	// TrustProxy says which hops' X-Forwarded-For headers are believed when
	// the context's remoteAddress is filled in (trustProxy, TRUST_PROXY).
	TrustProxy clientip.Trust
	// NamePrefix filters flags by name prefix upstream (namePrefix,
	// SERVICE_NAME_PREFIX).
	NamePrefix string
	// Tags filter flags by tag upstream (tags, SERVICE_TAGS as
	// "name:value,name2:value2").
	Tags []Tag
	// ClientKeysHeaderName is the request header that carries the client key
	// (clientKeysHeaderName, CLIENT_KEY_HEADER_NAME, default authorization).
	ClientKeysHeaderName string
	// StorageProvider keeps the last good configuration across restarts
	// (storageProvider). Defaults to files in BackupDir.
	StorageProvider StorageProvider
	// BackupDir is where the default storage provider writes
	// (SIGNALBOX_PROXY_BACKUP_DIR, default the OS temporary directory).
	BackupDir string
	// EnableOAS serves the OpenAPI document and Swagger UI (enableOAS,
	// ENABLE_OAS).
	EnableOAS bool
	// EnableAllEndpoint serves /proxy/all (enableAllEndpoint,
	// ENABLE_ALL_ENDPOINT).
	EnableAllEndpoint bool
	// CORS configures cross-origin answers (cors.*, CORS_*).
	CORS CORS
	// HTTPOptions configures connections upstream (httpOptions.*).
	HTTPOptions HTTPOptions
	// ExpBootstrap is where a configuration is loaded from at start
	// (expBootstrap, experimental).
	ExpBootstrap ExpBootstrap
	// ExpServerSideSDKConfig lets server SDKs read the configuration
	// (expServerSideSdkConfig, experimental).
	ExpServerSideSDKConfig ExpServerSideSDKConfig
	// ExpCustomEnrichersFile is the script file the command loads into
	// Enrichers (EXP_CUSTOM_ENRICHERS_FILE, experimental).
	ExpCustomEnrichersFile string
	// Enrichers change every evaluation context, in order, after the
	// defaults are filled in and before a fixed Environment is applied
	// (expCustomEnrichers). They must be safe for concurrent use.
	Enrichers []func(*engine.Context)

	// MaxBodyBytes bounds request bodies; larger ones get 413 (default
	// 1 MiB). Not an option of the reference proxy.
	MaxBodyBytes int64
	// UpstreamTimeout bounds each upstream request (default 10s). Not an
	// option of the reference proxy.
	UpstreamTimeout time.Duration
	// SDKVersion is the "name:version" sent upstream as unleash-sdk and
	// sdkVersion (default signalbox-proxy:dev).
	SDKVersion string
	// AnswerCacheBytes bounds the memory of the answers kept per context
	// for one configuration (SIGNALBOX_PROXY_ANSWER_CACHE_BYTES, default
	// 16 MiB); negative keeps none. Not an option of the reference proxy.
	AnswerCacheBytes int64
}

// Tag is one tag filter, sent upstream as tag=Name:Value.
type Tag struct {
	Name, Value string
}

// CORS holds the cors.* options (see answer.CORS): the proxy's browser
// answers and the server's frontend API share one CORS implementation.
type CORS = answer.CORS

// HTTPOptions holds the httpOptions.* options.
type HTTPOptions struct {
	// RejectUnauthorized rejects upstreams with invalid TLS certificates
	// (httpOptions.rejectUnauthorized, HTTP_OPTIONS_REJECT_UNAUTHORIZED).
	// nil means true; set it to a false value for self-signed upstreams.
	RejectUnauthorized *bool
}

// ExpBootstrap is the experimental bootstrap source.
type ExpBootstrap struct {
	// URL serves a client API payload (EXP_BOOTSTRAP_URL).
	URL string
	// Authorization is sent as the Authorization header
	// (expBootstrap.urlHeaders.Authorization, EXP_BOOTSTRAP_AUTHORIZATION).
	Authorization string
}

// ExpServerSideSDKConfig is the experimental server-side SDK access.
type ExpServerSideSDKConfig struct {
	// Tokens may read GET /proxy/client/features and post metrics
	// (EXP_SERVER_SIDE_SDK_CONFIG_TOKENS).
	Tokens []string
}

// logLevels maps LOG_LEVEL values to slog levels; fatal is above error.
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug,
	"info":  slog.LevelInfo,
	"warn":  slog.LevelWarn,
	"error": slog.LevelError,
	"fatal": slog.LevelError + 4,
}

// Validate reports every problem of c in one error: all missing required
// options by name, then any invalid value.
func (c Config) Validate() error {
	var missing []string
	if strings.TrimSpace(c.ServiceURL) == "" {
		missing = append(missing, "serviceUrl (SERVICE_URL)")
	}
	if strings.TrimSpace(c.ServiceAPIToken) == "" {
		missing = append(missing, "serviceApiToken (SERVICE_API_TOKEN)")
	}
	if len(c.clientKeys()) == 0 {
		missing = append(missing, "clientKeys (SERVICE_PROXY_CLIENT_KEYS)")
	}
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("missing required options: %s", strings.Join(missing, ", ")))
	}
	if c.ServiceURL != "" {
		if err := checkURL(c.ServiceURL); err != nil {
			errs = append(errs, fmt.Errorf("serviceUrl: %w", err))
		}
	}
	if c.ExpBootstrap.URL != "" {
		if err := checkURL(c.ExpBootstrap.URL); err != nil {
			errs = append(errs, fmt.Errorf("expBootstrap.url: %w", err))
		}
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, fmt.Errorf("port %d is not between 1 and 65535", c.Port))
	}
	for name, d := range map[string]time.Duration{
		"refreshInterval": c.RefreshInterval, "metricsInterval": c.MetricsInterval,
		"metricsJitter": c.MetricsJitter, "upstreamTimeout": c.UpstreamTimeout,
	} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative", name))
		}
	}
	if c.LogLevel != "" {
		if _, ok := logLevels[strings.ToLower(c.LogLevel)]; !ok {
			errs = append(errs, fmt.Errorf("logLevel %q is not one of debug, info, warn, error, fatal", c.LogLevel))
		}
	}
	if c.ClientKeysHeaderName != "" && !validHeaderName(c.ClientKeysHeaderName) {
		errs = append(errs, fmt.Errorf("clientKeysHeaderName %q is not a valid header name", c.ClientKeysHeaderName))
	}
	for _, t := range c.Tags {
		if t.Name == "" || t.Value == "" {
			errs = append(errs, fmt.Errorf("tag %q: want name:value", t.Name+":"+t.Value))
		}
	}
	if s := c.CORS.OptionsSuccessStatus; s != 0 && (s < 200 || s > 299) {
		errs = append(errs, fmt.Errorf("cors.optionsSuccessStatus %d is not a 2xx status", s))
	}
	if c.ServiceStreaming != nil && *c.ServiceStreaming && len(c.Tags) > 0 {
		errs = append(errs, errors.New("serviceStreaming: a stream cannot filter by tags; unset tags (SERVICE_TAGS) or serviceStreaming (SERVICE_STREAMING)"))
	}
	if c.MaxBodyBytes < 0 {
		errs = append(errs, errors.New("maxBodyBytes must not be negative"))
	}
	return errors.Join(errs...)
}

func checkURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL", s)
	}
	return nil
}

// validHeaderName reports whether s is an RFC 9110 token.
func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return s != ""
}

// clientKeys returns ClientKeys, or ProxySecrets when it is empty, without
// blank entries.
func (c Config) clientKeys() []string {
	keys := nonBlank(c.ClientKeys)
	if len(keys) == 0 {
		keys = nonBlank(c.ProxySecrets)
	}
	return keys
}

func nonBlank(list []string) []string {
	var out []string
	for _, s := range list {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// withDefaults returns c with every zero optional field set to its default.
func (c Config) withDefaults() Config {
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	if c.ServiceAppName == "" {
		c.ServiceAppName = DefaultAppName
	}
	if c.RefreshInterval == 0 {
		c.RefreshInterval = DefaultRefreshInterval
	}
	if c.MetricsInterval == 0 {
		c.MetricsInterval = DefaultMetricsInterval
	}
	if c.ClientKeysHeaderName == "" {
		c.ClientKeysHeaderName = DefaultClientKeysHeaderName
	}
	if c.LogLevel == "" {
		c.LogLevel = DefaultLogLevel
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.UpstreamTimeout == 0 {
		c.UpstreamTimeout = DefaultUpstreamTimeout
	}
	if c.SDKVersion == "" {
		c.SDKVersion = "signalbox-proxy:dev"
	}
	if c.AnswerCacheBytes == 0 {
		c.AnswerCacheBytes = answer.DefaultCacheBytes
	}
	c.ServiceURL = strings.TrimRight(strings.TrimSpace(c.ServiceURL), "/")
	c.ProxyBasePath = normalizeBasePath(c.ProxyBasePath)
	return c
}

// normalizeBasePath turns "base/path/", "/base/path" and "base/path" into
// "/base/path", and "" or "/" into "".
func normalizeBasePath(p string) string {
	p = strings.Trim(strings.TrimSpace(p), "/")
	if p == "" {
		return ""
	}
	return "/" + p
}

// rejectUnauthorized resolves the nil default of HTTPOptions.
func (h HTTPOptions) rejectUnauthorized() bool {
	return h.RejectUnauthorized == nil || *h.RejectUnauthorized
}

// canonicalKeyHeader is the map key under which net/http stores the client
// key header, so the hot path can index the header map directly.
func (c Config) canonicalKeyHeader() string {
	return http.CanonicalHeaderKey(c.ClientKeysHeaderName)
}
