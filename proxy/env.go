package proxy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/clientip"
	"github.com/signalbox/signalbox/internal/envparse"
)

// EnvVar documents one environment variable that ConfigFromEnv reads.
type EnvVar struct {
	Name    string // e.g. SERVICE_URL
	Option  string // the reference proxy's option, e.g. serviceUrl
	Default string // "" when there is none
	Help    string // one sentence
	set     func(c *Config, v string) error
}

// envVars is the one table ConfigFromEnv reads and EnvVars prints.
var envVars = []EnvVar{
	{"SERVICE_URL", "serviceUrl", "", "Upstream client API base URL (required).", func(c *Config, v string) error { c.ServiceURL = v; return nil }},
	{"SERVICE_API_TOKEN", "serviceApiToken", "", "Client API token used upstream (required).", func(c *Config, v string) error { c.ServiceAPIToken = v; return nil }},
	{"SERVICE_PROXY_CLIENT_KEYS", "clientKeys", "", "Comma-separated client keys callers must send (required).", func(c *Config, v string) error { c.ClientKeys = splitList(v); return nil }},
	{"SERVICE_PROXY_SECRETS", "proxySecrets", "", "Deprecated alias of SERVICE_PROXY_CLIENT_KEYS.", func(c *Config, v string) error { c.ProxySecrets = splitList(v); return nil }},
	{"PORT", "", "3000", "Listening port (PROXY_PORT is read when PORT is unset).", setPort},
	{"PROXY_PORT", "", "3000", "Listening port when PORT is unset.", func(c *Config, v string) error {
		if c.Port != 0 {
			return nil // PORT wins
		}
		return setPort(c, v)
	}},
	{"HTTP_HOST", "", "", "Listening address, e.g. 127.0.0.1; unset listens on every interface.", func(c *Config, v string) error { c.Host = v; return nil }},
	{"PROXY_BASE_PATH", "proxyBasePath", "", "Base path; /proxy is appended.", func(c *Config, v string) error { c.ProxyBasePath = v; return nil }},
	{"SERVICE_APP_NAME", "serviceAppName", DefaultAppName, "App name used upstream and as the context's default appName.", func(c *Config, v string) error { c.ServiceAppName = v; return nil }},
	{"SERVICE_INSTANCE_ID", "serviceInstanceId", "generated", "Instance id used upstream.", func(c *Config, v string) error { c.ServiceInstanceID = v; return nil }},
	{"SERVICE_FETCH_INTERVAL", "refreshInterval", "5000", "Milliseconds between upstream polls.", msSetter(func(c *Config) *time.Duration { return &c.RefreshInterval })},
	{"SERVICE_STREAMING", "", "unset", "true follows the upstream by streaming, false only polls; unset polls until the upstream suggests streaming.", func(c *Config, v string) error {
		b, err := envparse.Bool(v)
		c.ServiceStreaming = &b
		return err
	}},
	{"SERVICE_METRICS_INTERVAL", "metricsInterval", "30000", "Milliseconds between metrics uploads.", msSetter(func(c *Config) *time.Duration { return &c.MetricsInterval })},
	{"SERVICE_METRICS_JITTER", "metricsJitter", "0", "Largest random milliseconds added to each metrics interval.", msSetter(func(c *Config) *time.Duration { return &c.MetricsJitter })},
	{"SERVICE_ENVIRONMENT", "environment", "", "Fixed context environment; callers cannot override it.", func(c *Config, v string) error { c.Environment = v; return nil }},
	{"SERVICE_PROJECT_NAME", "projectName", "", "Only this project's flags are known to the proxy.", func(c *Config, v string) error { c.ProjectName = v; return nil }},
	{"JSON_LOGGER", "useJsonLogger", "false", "Write log lines as JSON.", boolSetter(func(c *Config) *bool { return &c.UseJSONLogger })},
	{"LOG_LEVEL", "logLevel", DefaultLogLevel, "One of debug, info, warn, error, fatal.", func(c *Config, v string) error { c.LogLevel = strings.ToLower(v); return nil }},
	{"SERVICE_CUSTOM_STRATEGIES_FILE", "customStrategies", "", "Script file exporting an array of custom strategies.", func(c *Config, v string) error { c.CustomStrategiesFile = v; return nil }},
	{"TRUST_PROXY", "trustProxy", "false", "true, false, or comma-separated IPs/CIDRs whose X-Forwarded-For is trusted.", func(c *Config, v string) error {
		t, err := clientip.Parse(v)
		c.TrustProxy = t
		return err
	}},
	{"SERVICE_NAME_PREFIX", "namePrefix", "", "Only flags whose names start with this prefix.", func(c *Config, v string) error { c.NamePrefix = v; return nil }},
	{"SERVICE_TAGS", "tags", "", "Tag filters as name:value,name2:value2.", setTags},
	{"CLIENT_KEY_HEADER_NAME", "clientKeysHeaderName", DefaultClientKeysHeaderName, "Request header that carries the client key.", func(c *Config, v string) error { c.ClientKeysHeaderName = v; return nil }},
	{"SIGNALBOX_PROXY_BACKUP_DIR", "", "OS temp dir", "Directory of the default backup files.", func(c *Config, v string) error { c.BackupDir = v; return nil }},
	{"SIGNALBOX_PROXY_ANSWER_CACHE_BYTES", "", "16777216", "Bytes of answers kept per evaluation context; 0 keeps none.", setAnswerCacheBytes},
	{"ENABLE_OAS", "enableOAS", "false", "Serve /docs/openapi.json and the Swagger UI at /docs/openapi/.", boolSetter(func(c *Config) *bool { return &c.EnableOAS })},
	{"ENABLE_ALL_ENDPOINT", "enableAllEndpoint", "false", "Serve /proxy/all, which lists disabled flags too.", boolSetter(func(c *Config) *bool { return &c.EnableAllEndpoint })},
	{"CORS_ALLOWED_HEADERS", "cors.allowedHeaders", "", "Comma-separated allowed request headers; unset echoes the preflight's.", func(c *Config, v string) error { c.CORS.AllowedHeaders = splitList(v); return nil }},
	{"CORS_CREDENTIALS", "cors.credentials", "false", "Allow credentials.", boolSetter(func(c *Config) *bool { return &c.CORS.Credentials })},
	{"CORS_EXPOSED_HEADERS", "cors.exposedHeaders", "ETag", "Comma-separated exposed response headers.", func(c *Config, v string) error { c.CORS.ExposedHeaders = splitList(v); return nil }},
	{"CORS_MAX_AGE", "cors.maxAge", "172800", "Seconds a preflight answer may be cached.", intSetter(func(c *Config) *int { return &c.CORS.MaxAge })},
	{"CORS_METHODS", "cors.methods", "GET, POST", "Comma-separated allowed methods.", func(c *Config, v string) error { c.CORS.Methods = splitList(v); return nil }},
	{"CORS_OPTIONS_SUCCESS_STATUS", "cors.optionsSuccessStatus", "204", "Status of a passing preflight.", intSetter(func(c *Config) *int { return &c.CORS.OptionsSuccessStatus })},
	{"CORS_ORIGIN", "cors.origin", "*", "Allowed origin or comma-separated origins.", func(c *Config, v string) error { c.CORS.Origin = splitList(v); return nil }},
	{"CORS_PREFLIGHT_CONTINUE", "cors.preflightContinue", "false", "Hand preflights on to the routes.", boolSetter(func(c *Config) *bool { return &c.CORS.PreflightContinue })},
	{"HTTP_OPTIONS_REJECT_UNAUTHORIZED", "httpOptions.rejectUnauthorized", "true", "false accepts invalid upstream TLS certificates.", func(c *Config, v string) error {
		b, err := envparse.Bool(v)
		c.HTTPOptions.RejectUnauthorized = &b
		return err
	}},
	{"EXP_BOOTSTRAP_URL", "expBootstrap.url", "", "URL of a configuration to load at start (experimental).", func(c *Config, v string) error { c.ExpBootstrap.URL = v; return nil }},
	{"EXP_BOOTSTRAP_AUTHORIZATION", "expBootstrap.urlHeaders.Authorization", "", "Authorization header for the bootstrap URL (experimental).", func(c *Config, v string) error { c.ExpBootstrap.Authorization = v; return nil }},
	{"EXP_SERVER_SIDE_SDK_CONFIG_TOKENS", "expServerSideSdkConfig.tokens", "", "Comma-separated tokens that may read /proxy/client/features (experimental).", func(c *Config, v string) error { c.ExpServerSideSDKConfig.Tokens = splitList(v); return nil }},
	{"EXP_CUSTOM_ENRICHERS_FILE", "expCustomEnrichers", "", "Script file exporting context enrichers (experimental).", func(c *Config, v string) error { c.ExpCustomEnrichersFile = v; return nil }},
}

// EnvVars lists the environment variables ConfigFromEnv reads, in order.
// A variable named SERVICE_X is also read as UNLEASH_X when SERVICE_X is
// unset, so an environment written for @unleash/proxy keeps working.
func EnvVars() []EnvVar { return append([]EnvVar(nil), envVars...) }

// ConfigFromEnv builds a Config from environment variables read through
// getenv (os.Getenv in production). Unset or empty variables leave the
// option at its default. It reports every malformed value in one error; it
// does not check required options, which is Validate's job.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	for _, ev := range envVars {
		v := strings.TrimSpace(getenv(ev.Name))
		if v == "" {
			if rest, ok := strings.CutPrefix(ev.Name, "SERVICE_"); ok {
				v = strings.TrimSpace(getenv("UNLEASH_" + rest))
			}
		}
		if v == "" {
			continue
		}
		if err := ev.set(&c, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ev.Name, err))
		}
	}
	return c, errors.Join(errs...)
}

// splitList splits a comma-separated value, dropping blanks.
func splitList(v string) []string {
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func boolSetter(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		b, err := envparse.Bool(v)
		*field(c) = b
		return err
	}
}

func intSetter(field func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		*field(c) = n
		return nil
	}
}

// msSetter reads a whole number of milliseconds.
func msSetter(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > int64(365*24*time.Hour/time.Millisecond) {
			return fmt.Errorf("%q is not a number of milliseconds", v)
		}
		*field(c) = time.Duration(n) * time.Millisecond
		return nil
	}
}

func setPort(c *Config, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q is not a port number", v)
	}
	c.Port = n
	return nil
}

func setTags(c *Config, v string) error {
	c.Tags = nil
	for _, s := range splitList(v) {
		name, value, ok := strings.Cut(s, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || value == "" {
			return fmt.Errorf("tag %q: want name:value", s)
		}
		c.Tags = append(c.Tags, Tag{Name: name, Value: value})
	}
	return nil
}

// setAnswerCacheBytes reads a whole number of bytes; 0 turns the cache off,
// which Config spells as a negative bound (its zero means the default).
func setAnswerCacheBytes(c *Config, v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a number of bytes", v)
	}
	c.AnswerCacheBytes = n
	if n == 0 {
		c.AnswerCacheBytes = -1
	}
	return nil
}
