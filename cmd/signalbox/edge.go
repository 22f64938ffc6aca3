package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/signalbox/signalbox/internal/clientip"
	"github.com/signalbox/signalbox/internal/envparse"
	"github.com/signalbox/signalbox/proxy"
)

// edgeOption is one option of `signalbox edge`, given as a flag
// (--upstream-url) or an environment variable (UPSTREAM_URL) under Unleash
// Edge's names; the flag wins.
type edgeOption struct {
	flag, env, def, help string
	boolean              bool
	set                  func(c *edgeSettings, v string) error
}

// edgeSettings is what the options fill in: the node's configuration and
// where it listens.
type edgeSettings struct {
	cfg       proxy.EdgeConfig
	port      int
	iface     string
	basePath  string
	logFormat string
}

func edgeList(dst *[]string) func(*edgeSettings, string) error {
	return func(_ *edgeSettings, v string) error { *dst = splitComma(v); return nil }
}

func seconds(dst func(*edgeSettings) *time.Duration) func(*edgeSettings, string) error {
	return func(s *edgeSettings, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > 86400 {
			return fmt.Errorf("%q is not a number of seconds between 1 and 86400", v)
		}
		*dst(s) = time.Duration(n) * time.Second
		return nil
	}
}

func edgeBool(dst func(*edgeSettings) *bool) func(*edgeSettings, string) error {
	return func(s *edgeSettings, v string) error {
		b, err := envparse.Bool(v)
		*dst(s) = b
		return err
	}
}

func edgeOptions(s *edgeSettings) []edgeOption {
	c := &s.cfg
	return []edgeOption{
		{"upstream-url", "UPSTREAM_URL", "", "Base URL of the upstream server or Edge node (an /api suffix is accepted).", false, func(_ *edgeSettings, v string) error { c.UpstreamURL = v; return nil }},
		{"port", "PORT", "3063", "Listening port.", false, func(s *edgeSettings, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 65535 {
				return fmt.Errorf("%q is not a port number", v)
			}
			s.port = n
			return nil
		}},
		{"interface", "INTERFACE", "0.0.0.0", "Listening address.", false, func(s *edgeSettings, v string) error { s.iface = v; return nil }},
		{"base-path", "BASE_PATH", "", "Path prefix of every endpoint.", false, func(s *edgeSettings, v string) error { s.basePath = v; return nil }},
		{"tokens", "TOKENS", "", "Comma-separated tokens to validate at start, so their flags are ready before the first SDK asks.", false, edgeList(&c.Tokens)},
		{"features-refresh-interval-seconds", "FEATURES_REFRESH_INTERVAL_SECONDS", "15", "Seconds between polls of the flags and re-validations of the tokens.", false, seconds(func(s *edgeSettings) *time.Duration { return &s.cfg.RefreshInterval })},
		{"metrics-interval-seconds", "METRICS_INTERVAL_SECONDS", "60", "Seconds between metrics uploads.", false, seconds(func(s *edgeSettings) *time.Duration { return &s.cfg.MetricsInterval })},
		{"streaming", "STREAMING", "unset", "true follows the upstream by streaming, false only polls; unset polls until the upstream suggests streaming.", false, func(_ *edgeSettings, v string) error {
			b, err := envparse.Bool(v)
			c.Streaming = &b
			return err
		}},
		{"offline", "OFFLINE", "false", "Serve BOOTSTRAP_FILE to CLIENT_TOKENS and FRONTEND_TOKENS without an upstream.", true, edgeBool(func(s *edgeSettings) *bool { return &s.cfg.Offline })},
		{"bootstrap-file", "BOOTSTRAP_FILE", "", "Client API payload served offline; read again when it changes.", false, func(_ *edgeSettings, v string) error { c.BootstrapFile = v; return nil }},
		{"pretrusted-tokens", "PRETRUSTED_TOKENS", "", "Comma-separated legacy client keys as key@environment, served as frontend tokens of that environment without asking the upstream.", false, edgeList(&c.PretrustedTokens)},
		{"client-tokens", "CLIENT_TOKENS", "", "Comma-separated client tokens accepted offline.", false, edgeList(&c.ClientTokens)},
		{"frontend-tokens", "FRONTEND_TOKENS", "", "Comma-separated frontend tokens accepted offline.", false, edgeList(&c.FrontendTokens)},
		{"reload-interval", "RELOAD_INTERVAL", "10", "Seconds between checks of the bootstrap file offline.", false, seconds(func(s *edgeSettings) *time.Duration { return &s.cfg.ReloadInterval })},
		{"app-name", "APP_NAME", proxy.DefaultEdgeAppName, "Name of the node upstream.", false, func(_ *edgeSettings, v string) error { c.AppName = v; return nil }},
		{"instance-id", "INSTANCE_ID", "generated", "Instance id of the node upstream.", false, func(_ *edgeSettings, v string) error { c.InstanceID = v; return nil }},
		{"enable-oas", "ENABLE_OAS", "false", "Serve the OpenAPI document at /docs/openapi.json and the Swagger UI at /docs/openapi/.", true, edgeBool(func(s *edgeSettings) *bool { return &s.cfg.EnableOAS })},
		{"disable-all-endpoint", "DISABLE_ALL_ENDPOINT", "false", "Turn off /api/frontend/all and /api/proxy/all.", true, edgeBool(func(s *edgeSettings) *bool { return &s.cfg.DisableAllEndpoint })},
		{"backup-folder", "BACKUP_FOLDER", "$XDG_STATE_HOME/signalbox or ~/.local/state/signalbox", "Directory of each scope's last configuration and of the tokens served, used when the upstream is down at start; only this user may write it (created 0700 when missing).", false, func(_ *edgeSettings, v string) error { c.BackupDir = v; return nil }},
		{"trust-proxy", "TRUST_PROXY", "false", "true, false, or comma-separated IPs/CIDRs whose X-Forwarded-For is trusted.", false, func(_ *edgeSettings, v string) error {
			t, err := clientip.Parse(v)
			c.TrustProxy = t
			return err
		}},
		{"cors-origin", "CORS_ORIGIN", "*", "Allowed origin or comma-separated origins.", false, edgeList(&c.CORS.Origin)},
		{"cors-methods", "CORS_METHODS", "GET, POST", "Comma-separated allowed methods.", false, edgeList(&c.CORS.Methods)},
		{"cors-allowed-headers", "CORS_ALLOWED_HEADERS", "", "Comma-separated allowed request headers; unset echoes the preflight's.", false, edgeList(&c.CORS.AllowedHeaders)},
		{"cors-exposed-headers", "CORS_EXPOSED_HEADERS", "ETag", "Comma-separated exposed response headers.", false, edgeList(&c.CORS.ExposedHeaders)},
		{"cors-max-age", "CORS_MAX_AGE", "172800", "Seconds a preflight answer may be cached.", false, func(_ *edgeSettings, v string) error {
			n, err := strconv.Atoi(v)
			c.CORS.MaxAge = n
			if err != nil {
				return fmt.Errorf("%q is not a whole number", v)
			}
			return nil
		}},
		{"log-level", "LOG_LEVEL", proxy.DefaultLogLevel, "One of debug, info, warn, error.", false, func(_ *edgeSettings, v string) error { c.LogLevel = strings.ToLower(v); return nil }},
		{"log-format", "LOG_FORMAT", "plain", "plain or json.", false, func(s *edgeSettings, v string) error {
			if v != "plain" && v != "json" {
				return fmt.Errorf("%q is not plain or json", v)
			}
			s.logFormat = v
			return nil
		}},
	}
}

// runEdge runs the node until ctx ends (SIGTERM or SIGINT).
func runEdge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	s, err := parseEdge(args, os.Getenv, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	s.cfg.BasePath = s.basePath
	s.cfg.UseJSONLogger = s.logFormat == "json"
	s.cfg.SDKVersion = "signalbox-edge:" + buildVersion()
	log := proxy.NewLogger(stderr, s.cfg.UseJSONLogger, s.cfg.LogLevel)
	s.cfg.Logger = log
	e, err := proxy.NewEdge(s.cfg)
	if err != nil {
		return usageError{err}
	}
	addr := net.JoinHostPort(s.iface, strconv.Itoa(s.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	upstream := e.Config().UpstreamURL
	if u, err := neturl.Parse(upstream); err == nil {
		upstream = u.Redacted()
	}
	if s.cfg.Offline {
		upstream = "offline: " + s.cfg.BootstrapFile
	}
	proxy.NewLogger(stderr, s.cfg.UseJSONLogger, "info").Info("signalbox edge listening",
		"version", buildVersion(), "addr", ln.Addr().String(), "url", listenURL(ln.Addr())+e.Config().BasePath, "upstream", upstream)
	return serveNode(ctx, e.Handler(), e.Run, e.Ready, e.CloseStreams, ln, log)
}

// parseEdge reads the options: environment first, then flags.
func parseEdge(args []string, getenv func(string) string, stderr io.Writer) (*edgeSettings, error) {
	s := &edgeSettings{port: proxy.DefaultEdgePort}
	opts := edgeOptions(s)
	var errs []error
	for _, o := range opts {
		if v := strings.TrimSpace(getenv(o.env)); v != "" {
			if err := o.set(s, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", o.env, err))
			}
		}
	}
	fs := flag.NewFlagSet("edge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { edgeUsage(stderr, opts) }
	for _, o := range opts {
		set := func(v string) error { return o.set(s, v) }
		if o.boolean {
			fs.BoolFunc(o.flag, o.help, set)
		} else {
			fs.Func(o.flag, o.help, set)
		}
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q (see -h)", fs.Args()))
	}
	return s, errors.Join(errs...)
}

func edgeUsage(w io.Writer, opts []edgeOption) {
	fmt.Fprint(w, `usage: signalbox edge [flags]

Runs an Edge-mode node: it serves the frontend API (/api/frontend) and the
client API (/api/client/features) to SDKs holding any valid token of its
upstream, validating each token once. Every option is a flag or an
environment variable of the same name (the flag wins):

`)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLAG\tVARIABLE\tDEFAULT\tMEANING")
	for _, o := range opts {
		def := o.def
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(tw, "--%s\t%s\t%s\t%s\n", o.flag, o.env, def, o.help)
	}
	_ = tw.Flush()
}
