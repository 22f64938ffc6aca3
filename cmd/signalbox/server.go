package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store/sqlstore"
)

// serverEnv documents the environment variables of "signalbox server".
const serverEnv = `environment:
  PORT                        listening port (default 4242)
  HTTP_HOST                   listening address (default all interfaces)
  DATABASE_URL                postgres://… for PostgreSQL; empty for embedded SQLite
  DATA_DIR                    directory of the SQLite file (default ./data)
  INIT_ADMIN_API_TOKENS       comma-separated admin tokens (*:*.<secret>) created at start
  INIT_CLIENT_API_TOKENS      comma-separated client tokens (<project>:<env>.<secret>)
  INIT_FRONTEND_API_TOKENS    comma-separated frontend tokens
  ADMIN_PASSWORD              initial password of the user "admin" (alias
                              UNLEASH_DEFAULT_ADMIN_PASSWORD); generated and printed once if unset
  LOG_LEVEL                   debug, info, warn or error (default info)
  JSON_LOGGER                 true for one JSON object per log line
  SECURE_COOKIES              true to mark session cookies Secure (behind HTTPS)
  SIGNALBOX_URL               public URL of the server (alias UNLEASH_URL), used by SAML sign-in
`

// serverConfig is everything "signalbox server" reads from flags and env.
type serverConfig struct {
	addr          string
	databaseURL   string
	dataDir       string
	bootstrap     server.BootstrapConfig
	logLevel      string
	jsonLogs      bool
	secureCookies bool
	publicURL     string
}

func serverConfigFrom(args []string, getenv func(string) string, stderr io.Writer) (serverConfig, error) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: signalbox server [flags]\n\nflags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+serverEnv)
	}
	port := envOr(getenv, "PORT", "4242")
	c := serverConfig{}
	fs.StringVar(&port, "port", port, "listening port (env PORT)")
	host := fs.String("host", getenv("HTTP_HOST"), "listening address (env HTTP_HOST)")
	fs.StringVar(&c.databaseURL, "database-url", getenv("DATABASE_URL"), "PostgreSQL URL; empty for SQLite (env DATABASE_URL)")
	fs.StringVar(&c.dataDir, "data-dir", envOr(getenv, "DATA_DIR", "data"), "SQLite data directory (env DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return c, usageError{err}
	}
	if fs.NArg() > 0 {
		return c, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	c.addr = net.JoinHostPort(*host, port)
	c.logLevel = envOr(getenv, "LOG_LEVEL", "info")
	c.jsonLogs = strings.EqualFold(getenv("JSON_LOGGER"), "true")
	c.secureCookies = strings.EqualFold(getenv("SECURE_COOKIES"), "true")
	c.publicURL = envOr(getenv, "SIGNALBOX_URL", getenv("UNLEASH_URL"))
	c.bootstrap = server.BootstrapConfig{
		AdminTokens:    splitComma(getenv("INIT_ADMIN_API_TOKENS")),
		ClientTokens:   splitComma(getenv("INIT_CLIENT_API_TOKENS")),
		FrontendTokens: splitComma(getenv("INIT_FRONTEND_API_TOKENS")),
		AdminPassword:  envOr(getenv, "ADMIN_PASSWORD", getenv("UNLEASH_DEFAULT_ADMIN_PASSWORD")),
	}
	if c.databaseURL != "" && !strings.HasPrefix(c.databaseURL, "postgres://") && !strings.HasPrefix(c.databaseURL, "postgresql://") {
		return c, usageError{errors.New("DATABASE_URL must start with postgres:// or postgresql://; leave it empty for the embedded SQLite")}
	}
	return c, nil
}

func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := serverConfigFrom(args, os.Getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.jsonLogs, cfg.logLevel)

	dbURL := cfg.databaseURL
	if dbURL == "" {
		dbURL = filepath.Join(cfg.dataDir, "signalbox.db")
	}
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	st, err := sqlstore.Open(openCtx, dbURL)
	cancel()
	if err != nil {
		return fmt.Errorf("opening the database: %w", err)
	}
	defer st.Close()

	generated, err := server.Bootstrap(ctx, st, cfg.bootstrap)
	if err != nil {
		return fmt.Errorf("creating start-up tokens and the admin user: %w", err)
	}
	if generated != "" {
		fmt.Fprintf(stdout, "Created the user \"admin\" with password %s\nSign in and change it; it is not shown again.\n", generated)
	}

	srv, err := server.New(ctx, st, server.Config{Log: log, Version: version, SecureCookies: cfg.secureCookies, PublicURL: cfg.publicURL})
	if err != nil {
		return err
	}
	return serve(ctx, log, cfg.addr, srv.Handler(), srv.Run, srv.CloseStreams)
}

// serve listens on addr and runs background work until ctx is cancelled,
// then shuts down gracefully: in-flight requests finish, background work
// gets to flush.
func serve(ctx context.Context, log *slog.Logger, addr string, h http.Handler, background func(context.Context) error, onShutdown ...func()) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	for _, f := range onShutdown {
		hs.RegisterOnShutdown(f) // ends long-lived streams, which Shutdown would wait for
	}
	log.Info("listening", "addr", ln.Addr().String())
	bgCtx, stopBg := context.WithCancel(context.Background())
	bgDone := make(chan error, 1)
	go func() { bgDone <- background(bgCtx) }()
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	select {
	case err := <-serveErr:
		stopBg()
		<-bgDone
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err = hs.Shutdown(shutCtx)
	stopBg()
	if bgErr := <-bgDone; bgErr != nil && !errors.Is(bgErr, context.Canceled) {
		log.Warn("background work ended with an error", "err", bgErr)
	}
	return err
}

func newLogger(w io.Writer, json bool, level string) *slog.Logger {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lv}
	if json {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
