package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/signalbox/signalbox/internal/clientip"
	"github.com/signalbox/signalbox/internal/envparse"
	"github.com/signalbox/signalbox/server"
)

// serverConfig is everything "signalbox server" reads from flags and env.
type serverConfig struct {
	host           string
	port           int
	databaseURL    string
	dataDir        string
	connectTimeout time.Duration
	bootstrap      server.BootstrapConfig
	logLevel       slog.Level
	jsonLogs       bool
	secureCookies  bool
	publicURL      string
	trustProxy     clientip.Trust
	// frontendOrigins is nil unless set: nil lets the server allow any.
	frontendOrigins []string
	// Server-sent event streams of the client API.
	streamHeartbeat    time.Duration
	maxStreams         int
	advertiseStreaming server.AdvertiseMode
	// addonAllowedHosts lets webhooks reach these internal hosts.
	addonAllowedHosts []string
	// metricsRetention is how long hourly client metrics are kept.
	metricsRetention time.Duration
}

// Defaults of "signalbox server".
const (
	defaultServerPort     = 4242
	defaultDataDir        = "data"
	defaultConnectTimeout = 60 * time.Second
	// minTokenSecret is the shortest secret an INIT_*_API_TOKENS entry may
	// have. Tokens the server generates have 64 hex characters; a secret
	// typed by hand must still be too long to guess.
	minTokenSecret = 32
)

// serverVar is one environment variable of "signalbox server".
type serverVar struct {
	Name    string
	Default string // "" when there is none
	Help    string
	set     func(c *serverConfig, v string) error
}

// serverVars is the one table serverConfigFromEnv reads and -h prints. A
// value that does not parse is an error naming the variable: a typo must
// not silently fall back to a default.
var serverVars = []serverVar{
	{"PORT", strconv.Itoa(defaultServerPort), "Listening port (0 picks a free one).", func(c *serverConfig, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 65535 {
			return fmt.Errorf("%q is not a port number (0 to 65535)", v)
		}
		c.port = n
		return nil
	}},
	{"HTTP_HOST", "", "Listening address, e.g. 127.0.0.1; empty listens on all interfaces.", func(c *serverConfig, v string) error { c.host = v; return nil }},
	{"DATABASE_URL", "", "postgres://user:password@host/db for PostgreSQL; empty for the embedded SQLite.", func(c *serverConfig, v string) error {
		lower := strings.ToLower(v)
		if !strings.HasPrefix(lower, "postgres://") && !strings.HasPrefix(lower, "postgresql://") {
			return errors.New("must start with postgres:// or postgresql://; leave it empty for the embedded SQLite")
		}
		c.databaseURL = v
		return nil
	}},
	{"DATA_DIR", defaultDataDir, "Directory of the SQLite file signalbox.db.", func(c *serverConfig, v string) error { c.dataDir = v; return nil }},
	{"DATABASE_CONNECT_TIMEOUT", "60s", "How long to keep retrying an unreachable PostgreSQL at start (e.g. 90s, 2m; 0 tries once).", func(c *serverConfig, v string) error {
		d, err := parseDuration(v)
		c.connectTimeout = d
		return err
	}},
	{"INIT_ADMIN_API_TOKENS", "", "Comma-separated admin tokens (*:*.<secret>, secrets of 32+ characters) created at start.", tokensSetter("admin", func(c *serverConfig) *[]string { return &c.bootstrap.AdminTokens })},
	{"INIT_CLIENT_API_TOKENS", "", "Comma-separated client tokens (<project>:<environment>.<secret>, secrets of 32+ characters) created at start.", tokensSetter("client", func(c *serverConfig) *[]string { return &c.bootstrap.ClientTokens })},
	{"INIT_FRONTEND_API_TOKENS", "", "Comma-separated frontend tokens (<project>:<environment>.<secret>, secrets of 32+ characters) created at start.", tokensSetter("frontend", func(c *serverConfig) *[]string { return &c.bootstrap.FrontendTokens })},
	{"ADMIN_PASSWORD", "generated", "Initial password of the user \"admin\"; generated and printed once when unset.", func(c *serverConfig, v string) error { c.bootstrap.AdminPassword = v; return nil }},
	{"UNLEASH_DEFAULT_ADMIN_PASSWORD", "", "Alias of ADMIN_PASSWORD, read when it is unset.", func(c *serverConfig, v string) error {
		if c.bootstrap.AdminPassword == "" {
			c.bootstrap.AdminPassword = v
		}
		return nil
	}},
	{"LOG_LEVEL", "info", "One of debug, info, warn, error, fatal.", func(c *serverConfig, v string) error {
		lv, ok := logLevels[strings.ToLower(v)]
		if !ok {
			return fmt.Errorf("%q is not one of debug, info, warn, error, fatal", v)
		}
		c.logLevel = lv
		return nil
	}},
	{"JSON_LOGGER", "false", "Write one JSON object per log line.", boolSetter(func(c *serverConfig) *bool { return &c.jsonLogs })},
	{"SECURE_COOKIES", "false", "Mark session cookies Secure (set it when users reach the server over HTTPS).", boolSetter(func(c *serverConfig) *bool { return &c.secureCookies })},
	{"SIGNALBOX_URL", "", "Public URL of the server, e.g. https://flags.example.com; SAML sign-in needs it.", func(c *serverConfig, v string) error { c.publicURL = v; return nil }},
	{"UNLEASH_URL", "", "Alias of SIGNALBOX_URL, read when it is unset.", func(c *serverConfig, v string) error {
		if c.publicURL == "" {
			c.publicURL = v
		}
		return nil
	}},
	{"TRUST_PROXY", "false", "true, false, or comma-separated IPs/CIDRs (or loopback, linklocal, uniquelocal) whose X-Forwarded-For is trusted for the client address.", func(c *serverConfig, v string) error {
		t, err := clientip.Parse(v)
		c.trustProxy = t
		return err
	}},
	{"SIGNALBOX_MAX_STREAMS", "10000", "Concurrent client API streams (/api/client/streaming); beyond it SDKs get 429 and poll.", func(c *serverConfig, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a positive number", v)
		}
		c.maxStreams = n
		return nil
	}},
	{"SIGNALBOX_STREAM_HEARTBEAT", "20s", "How often an idle stream gets a heartbeat (SDKs give up after 60 s of silence).", func(c *serverConfig, v string) error {
		d, err := parseDuration(v)
		if err == nil && d <= 0 {
			err = fmt.Errorf("%q is not a positive duration", v)
		}
		c.streamHeartbeat = d
		return err
	}},
	{"METRICS_RETENTION", "48h", "How long hourly SDK metrics are kept (1h to 2160h); older hours are rolled up into daily totals kept 90 days.", func(c *serverConfig, v string) error {
		d, err := parseDuration(v)
		if err == nil && (d < time.Hour || d > server.DailyMetricsRetention) {
			err = fmt.Errorf("%q is not a duration from 1h to 2160h", v)
		}
		c.metricsRetention = d
		return err
	}},
	{"SIGNALBOX_ADVERTISE_STREAMING", "streamed", "Which SDK polls get fetch-mode: streaming, moving them onto the stream: streamed (SDK instances that held a stream within the last day), all, or off; true and false mean all and off.", func(c *serverConfig, v string) error {
		m, err := server.ParseAdvertiseMode(v)
		c.advertiseStreaming = m
		return err
	}},
	{"UNLEASH_FRONTEND_API_ORIGINS", "*", "Comma-separated origins browsers may call the frontend API from (CORS), until an admin saves the setting; * allows any.", func(c *serverConfig, v string) error {
		c.frontendOrigins = []string{}
		for _, o := range strings.Split(v, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.frontendOrigins = append(c.frontendOrigins, o)
			}
		}
		return nil
	}},
	{"ADDON_ALLOWED_HOSTS", "", "Comma-separated host names (exact), IPs or CIDRs that webhooks may reach although internal (loopback, private, link-local); by default they may not.", func(c *serverConfig, v string) error {
		c.addonAllowedHosts = splitComma(v)
		return server.CheckAddonAllowedHosts(c.addonAllowedHosts)
	}},
}

// logLevels are the LOG_LEVEL values, the same the proxy accepts; fatal
// shows only records above error.
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug,
	"info":  slog.LevelInfo,
	"warn":  slog.LevelWarn,
	"error": slog.LevelError,
	"fatal": slog.LevelError + 4,
}

// serverConfigFromEnv builds the configuration from environment variables
// read through getenv. Unset or empty variables keep their defaults; every
// malformed value is reported in one error.
func serverConfigFromEnv(getenv func(string) string) (serverConfig, error) {
	c := serverConfig{port: defaultServerPort, dataDir: defaultDataDir, connectTimeout: defaultConnectTimeout, logLevel: slog.LevelInfo,
		metricsRetention: server.DefaultMetricsRetention}
	var errs []error
	for _, ev := range serverVars {
		v := strings.TrimSpace(getenv(ev.Name))
		if v == "" {
			continue
		}
		if err := ev.set(&c, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ev.Name, err))
		}
	}
	return c, errors.Join(errs...)
}

// printServerEnv writes the variables table of "signalbox server -h".
func printServerEnv(w io.Writer) {
	fmt.Fprint(w, "\nenvironment (flags win over variables):\n\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tDEFAULT\tMEANING")
	for _, ev := range serverVars {
		def := ev.Default
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ev.Name, def, ev.Help)
	}
	_ = tw.Flush()
}

func boolSetter(field func(*serverConfig) *bool) func(*serverConfig, string) error {
	return func(c *serverConfig, v string) error {
		b, err := envparse.Bool(v)
		*field(c) = b
		return err
	}
}

// parseDuration reads a Go duration ("90s", "2m") or a whole number of
// seconds.
func parseDuration(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration such as 60s or 2m", v)
	}
	return d, nil
}

// tokensSetter reads a comma-separated token list and refuses secrets that
// are short enough to guess. The shape of each token (scope, kind) is
// checked by server.Bootstrap.
func tokensSetter(kind string, field func(*serverConfig) *[]string) func(*serverConfig, string) error {
	return func(c *serverConfig, v string) error {
		tokens := splitComma(v)
		var errs []error
		for _, t := range tokens {
			scope, secret, ok := strings.Cut(t, ".")
			if !ok {
				errs = append(errs, fmt.Errorf("%s token %q is not of the form <project>:<environment>.<secret>", kind, redactSecret(t)))
				continue
			}
			if n := len(secret); n < minTokenSecret {
				errs = append(errs, fmt.Errorf("the secret of %s token %s.%s has %d characters; use at least %d (for example 64 random hex characters from `openssl rand -hex 32`)",
					kind, scope, redactSecret(secret), n, minTokenSecret))
			}
		}
		*field(c) = tokens
		return errors.Join(errs...)
	}
}

// redactSecret keeps the first characters of a secret, so that an error
// message names the entry without disclosing it.
func redactSecret(secret string) string {
	if len(secret) > 4 {
		secret = secret[:4]
	}
	return secret + "…"
}
