package proxy

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/clientip"
)

// Defaults of Edge mode, as Unleash Edge has them where it has the option.
const (
	DefaultEdgePort            = 3063
	DefaultEdgeAppName         = "signalbox-edge"
	DefaultEdgeRefreshInterval = 15 * time.Second
	DefaultEdgeMetricsInterval = 60 * time.Second
	// DefaultEdgeMaxTokens bounds the tokens one node serves at once.
	DefaultEdgeMaxTokens = 10000
	// DefaultEdgeValidationsPerSecond bounds how often unknown tokens are
	// sent upstream for validation; DefaultEdgeValidationBurst is how many
	// may go at once after a quiet spell.
	DefaultEdgeValidationsPerSecond = 10
	DefaultEdgeValidationBurst      = 50
	// DefaultEdgeValidationAddresses bounds the client addresses whose
	// own validation budgets a node remembers.
	DefaultEdgeValidationAddresses = 10000
)

// EdgeConfig holds the options of Edge mode (`signalbox edge`): one node
// serving the SDKs of many tokens, each validated against the upstream.
type EdgeConfig struct {
	// UpstreamURL is the base URL of the upstream server or Edge node
	// (UPSTREAM_URL); a trailing /api is accepted and removed.
	UpstreamURL string
	// Tokens are validated at start so their flags are ready before the
	// first SDK asks (TOKENS).
	Tokens []string
	// RefreshInterval is the time between polls of each scope's flags and
	// between re-validations of the known tokens
	// (FEATURES_REFRESH_INTERVAL_SECONDS, default 15 s).
	RefreshInterval time.Duration
	// MetricsInterval is the time between metrics uploads
	// (METRICS_INTERVAL_SECONDS, default 60 s).
	MetricsInterval time.Duration
	// Streaming follows the upstream's changes by stream where it offers
	// them (STREAMING); nil decides as the proxy does.
	Streaming *bool
	// Offline serves BootstrapFile to ClientTokens and FrontendTokens with
	// no upstream (OFFLINE).
	Offline bool
	// BootstrapFile is a client API payload (BOOTSTRAP_FILE); in offline
	// mode it is read again when it changes.
	BootstrapFile string
	// PretrustedTokens are legacy free-form client keys, each given as
	// "key@environment", served as frontend tokens of every project of
	// that environment without asking the upstream (PRETRUSTED_TOKENS):
	// for browser SDKs that still send @unleash/proxy's keys.
	PretrustedTokens []string
	// ClientTokens and FrontendTokens are the tokens accepted offline
	// (CLIENT_TOKENS, FRONTEND_TOKENS).
	ClientTokens, FrontendTokens []string
	// ReloadInterval is how often the bootstrap file is checked for
	// changes offline (RELOAD_INTERVAL, default 10 s).
	ReloadInterval time.Duration
	// BasePath prefixes every path (BASE_PATH).
	BasePath string
	// AppName names the node upstream (APP_NAME).
	AppName string
	// InstanceID identifies the node upstream (INSTANCE_ID); generated
	// when empty.
	InstanceID string
	// EnableOAS serves the node's OpenAPI document at /docs/openapi.json
	// and the Swagger UI at /docs/openapi/ (ENABLE_OAS).
	EnableOAS bool
	// DisableAllEndpoint turns off /api/frontend/all and /api/proxy/all
	// (DISABLE_ALL_ENDPOINT).
	DisableAllEndpoint bool
	// CORS configures cross-origin answers (CORS_*).
	CORS CORS
	// TrustProxy says which hops' X-Forwarded-For headers are believed
	// (TRUST_PROXY).
	TrustProxy clientip.Trust
	// BackupDir is where each scope's last configuration and the tokens
	// served are kept across restarts (BACKUP_FOLDER, default
	// DefaultEdgeBackupDir). It must be a folder only the node's user can
	// write; it is created 0700 when missing.
	BackupDir string
	// MaxTokens bounds the tokens served at once (default 10,000).
	MaxTokens int
	// MaxStreams bounds the open /api/client/streaming connections
	// (default 10,000); more get 429 and poll.
	MaxStreams int
	// ValidationsPerSecond and ValidationBurst bound validations of
	// unknown tokens upstream (defaults 10 and 50).
	ValidationsPerSecond float64
	ValidationBurst      int
	// AddressValidationsPerSecond and AddressValidationBurst bound the
	// validations one client address may cause, taken before the shared
	// budget above (defaults a fifth of it: 2 and 10), so that one
	// address sending made-up tokens cannot starve the others.
	// ValidationAddresses bounds the addresses remembered (default
	// 10,000; the least recently seen is forgotten first).
	AddressValidationsPerSecond float64
	AddressValidationBurst      int
	ValidationAddresses         int
	// UpstreamTimeout bounds each upstream request (default 10 s).
	UpstreamTimeout time.Duration
	// AnswerCacheBytes bounds the answers kept per scope (as the proxy's).
	AnswerCacheBytes int64
	// Logger replaces the default logger.
	Logger *slog.Logger
	// LogLevel and UseJSONLogger configure the default logger (LOG_LEVEL,
	// LOG_FORMAT=json).
	LogLevel      string
	UseJSONLogger bool
	// SDKVersion is the "name:version" sent upstream.
	SDKVersion string
}

// Validate reports every problem of c in one error.
func (c EdgeConfig) Validate() error {
	var errs []error
	switch {
	case c.Offline && strings.TrimSpace(c.BootstrapFile) == "":
		errs = append(errs, errors.New("offline mode needs BOOTSTRAP_FILE"))
	case c.Offline && len(nonBlank(c.ClientTokens))+len(nonBlank(c.FrontendTokens)) == 0:
		errs = append(errs, errors.New("offline mode needs CLIENT_TOKENS or FRONTEND_TOKENS"))
	case !c.Offline && strings.TrimSpace(c.UpstreamURL) == "":
		errs = append(errs, errors.New("missing required option UPSTREAM_URL (or run --offline with BOOTSTRAP_FILE)"))
	case !c.Offline:
		if err := checkURL(strings.TrimSpace(c.UpstreamURL)); err != nil {
			errs = append(errs, fmt.Errorf("UPSTREAM_URL: %w", err))
		}
	}
	for _, list := range [][]string{c.Tokens, c.ClientTokens, c.FrontendTokens} {
		for _, t := range nonBlank(list) {
			if _, _, ok := splitToken(t); !ok {
				errs = append(errs, fmt.Errorf("token %q is not of the form project:environment.secret", redactToken(t)))
			}
		}
	}
	for _, t := range nonBlank(c.PretrustedTokens) {
		if _, _, ok := splitPretrusted(t); !ok {
			errs = append(errs, fmt.Errorf("PRETRUSTED_TOKENS: %q is not of the form key@environment", redactToken(t)))
		}
	}
	for name, d := range map[string]time.Duration{
		"FEATURES_REFRESH_INTERVAL_SECONDS": c.RefreshInterval, "METRICS_INTERVAL_SECONDS": c.MetricsInterval,
		"RELOAD_INTERVAL": c.ReloadInterval, "upstream timeout": c.UpstreamTimeout,
	} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative", name))
		}
	}
	if c.LogLevel != "" {
		if _, ok := logLevels[strings.ToLower(c.LogLevel)]; !ok {
			errs = append(errs, fmt.Errorf("LOG_LEVEL %q is not one of debug, info, warn, error, fatal", c.LogLevel))
		}
	}
	if s := c.CORS.OptionsSuccessStatus; s != 0 && (s < 200 || s > 299) {
		errs = append(errs, fmt.Errorf("CORS options success status %d is not a 2xx status", s))
	}
	return errors.Join(errs...)
}

func (c EdgeConfig) withDefaults() EdgeConfig {
	if c.RefreshInterval == 0 {
		c.RefreshInterval = DefaultEdgeRefreshInterval
	}
	if c.MetricsInterval == 0 {
		c.MetricsInterval = DefaultEdgeMetricsInterval
	}
	if c.ReloadInterval == 0 {
		c.ReloadInterval = 10 * time.Second
	}
	if c.AppName == "" {
		c.AppName = DefaultEdgeAppName
	}
	if c.InstanceID == "" {
		c.InstanceID = generatedInstanceID()
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = DefaultEdgeMaxTokens
	}
	if c.MaxStreams <= 0 {
		c.MaxStreams = DefaultEdgeMaxStreams
	}
	if len(c.CORS.ExposedHeaders) == 0 {
		// Scripts read the ETag, and fetch-mode, which asks SDKs back
		// onto their stream.
		c.CORS.ExposedHeaders = []string{"ETag", "fetch-mode"}
	}
	if c.ValidationsPerSecond <= 0 {
		c.ValidationsPerSecond = DefaultEdgeValidationsPerSecond
	}
	if c.ValidationBurst <= 0 {
		c.ValidationBurst = DefaultEdgeValidationBurst
	}
	if c.AddressValidationsPerSecond <= 0 {
		c.AddressValidationsPerSecond = c.ValidationsPerSecond / 5
	}
	if c.AddressValidationBurst <= 0 {
		c.AddressValidationBurst = max(1, c.ValidationBurst/5)
	}
	if c.ValidationAddresses <= 0 {
		c.ValidationAddresses = DefaultEdgeValidationAddresses
	}
	if c.BackupDir == "" {
		c.BackupDir = DefaultEdgeBackupDir()
	}
	if c.UpstreamTimeout == 0 {
		c.UpstreamTimeout = DefaultUpstreamTimeout
	}
	if c.LogLevel == "" {
		c.LogLevel = DefaultLogLevel
	}
	if c.SDKVersion == "" {
		c.SDKVersion = "signalbox-edge:dev"
	}
	c.UpstreamURL = strings.TrimRight(strings.TrimSpace(c.UpstreamURL), "/")
	c.UpstreamURL = strings.TrimRight(strings.TrimSuffix(c.UpstreamURL, "/api"), "/")
	c.BasePath = normalizeBasePath(c.BasePath)
	return c
}

// splitToken reads the scope of a token string project:environment.secret
// ("*" all projects, "[]" several, listed only upstream).
func splitToken(t string) (project, environment string, ok bool) {
	scope, secret, found := strings.Cut(t, ".")
	if !found || secret == "" {
		return "", "", false
	}
	project, environment, found = strings.Cut(scope, ":")
	if !found || project == "" || environment == "" {
		return "", "", false
	}
	return project, environment, true
}

// splitPretrusted reads "key@environment"; the key is whatever comes
// before the last @.
func splitPretrusted(t string) (key, environment string, ok bool) {
	i := strings.LastIndexByte(t, '@')
	if i <= 0 || i == len(t)-1 {
		return "", "", false
	}
	return t[:i], t[i+1:], true
}

// redactToken keeps a token's scope and the first characters of its
// secret, enough to tell tokens apart in logs and lists.
func redactToken(t string) string {
	scope, secret, found := strings.Cut(t, ".")
	if !found {
		if len(t) > 6 {
			return t[:6] + "…"
		}
		return "…"
	}
	if len(secret) > 6 {
		secret = secret[:6]
	}
	return scope + "." + secret + "…"
}
