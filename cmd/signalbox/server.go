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
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store/sqlstore"
)

func serverConfigFrom(args []string, getenv func(string) string, stderr io.Writer) (serverConfig, error) {
	c, envErr := serverConfigFromEnv(getenv)
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: signalbox server [flags]\n\nflags:\n")
		fs.PrintDefaults()
		printServerEnv(stderr)
	}
	fs.IntVar(&c.port, "port", c.port, "listening port (env PORT)")
	fs.StringVar(&c.host, "host", c.host, "listening address (env HTTP_HOST)")
	fs.StringVar(&c.databaseURL, "database-url", c.databaseURL, "PostgreSQL URL; empty for SQLite (env DATABASE_URL)")
	fs.StringVar(&c.dataDir, "data-dir", c.dataDir, "SQLite data directory (env DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, usageError{err}
	}
	if fs.NArg() > 0 {
		return c, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	var errs []error
	if envErr != nil {
		errs = append(errs, envErr)
	}
	if c.port < 0 || c.port > 65535 {
		errs = append(errs, fmt.Errorf("-port %d is not a port number (0 to 65535)", c.port))
	}
	if lower := strings.ToLower(c.databaseURL); c.databaseURL != "" && !strings.HasPrefix(lower, "postgres://") && !strings.HasPrefix(lower, "postgresql://") {
		errs = append(errs, errors.New("-database-url must start with postgres:// or postgresql://; leave it empty for the embedded SQLite"))
	}
	if err := errors.Join(errs...); err != nil {
		return c, usageError{err}
	}
	return c, nil
}

// addr is the address to listen on.
func (c serverConfig) addr() string { return net.JoinHostPort(c.host, strconv.Itoa(c.port)) }

// databaseURL is what sqlstore.Open gets: the PostgreSQL URL or the SQLite
// file in the data directory.
func (c serverConfig) storeURL() string {
	if c.databaseURL != "" {
		return c.databaseURL
	}
	return filepath.Join(c.dataDir, "signalbox.db")
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
	kind, where := sqlstore.Describe(cfg.storeURL())
	log.Info("starting signalbox server", "version", buildVersion(), "database", kind, "location", where)

	st, err := openStore(ctx, log, cfg)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Warn("closing the database", "err", err)
		}
	}()

	// The port is taken before the admin user is created, so that a port
	// in use or a bad address stops the start before a generated password
	// is printed and lost.
	ln, err := net.Listen("tcp", cfg.addr())
	if err != nil {
		return fmt.Errorf("listening on %s: %w", cfg.addr(), err)
	}
	defer ln.Close()

	generated, err := server.Bootstrap(ctx, st, cfg.bootstrap)
	if err != nil {
		return fmt.Errorf("creating start-up tokens and the admin user: %w", err)
	}
	if generated != "" {
		fmt.Fprintf(stdout, "Created the user \"admin\" with password %s\nSign in and change it; it is not shown again (\"signalbox admin reset-password admin\" sets a new one).\n", generated)
	}

	srv, err := server.New(ctx, st, server.Config{
		Log: log, Version: buildVersion(), SecureCookies: cfg.secureCookies, PublicURL: cfg.publicURL,
		TrustProxy: cfg.trustProxy, FrontendAPIOrigins: cfg.frontendOrigins,
		StreamHeartbeat: cfg.streamHeartbeat, MaxStreams: cfg.maxStreams, AdvertiseStreaming: cfg.advertiseStreaming,
		AddonAllowedHosts: cfg.addonAllowedHosts,
		MetricsRetention:  cfg.metricsRetention,
	})
	if err != nil {
		return err
	}
	url := listenURL(ln.Addr())
	log.Info("listening", "addr", ln.Addr().String(), "url", url, "docs", url+"/docs/openapi/")
	go func() {
		giveBackStartup(log) // a collection: the live heap is known after it
		if os.Getenv("GOGC") == "" {
			followHeap(ctx, serverGC)
		}
	}()
	return serve(ctx, log, ln, srv.Handler(), srv.Run, srv.CloseStreams)
}

// openStore opens the configured database. An unreachable PostgreSQL is
// retried for cfg.connectTimeout, as a database container often starts
// after the server's.
func openStore(ctx context.Context, log *slog.Logger, cfg serverConfig) (*sqlstore.Store, error) {
	_, where := sqlstore.Describe(cfg.storeURL())
	st, err := sqlstore.OpenRetrying(ctx, cfg.storeURL(), cfg.connectTimeout, func(attempt int, wait time.Duration, err error) {
		log.Warn("the database is not reachable yet; retrying", "location", where, "attempt", attempt, "retry_in", wait.Round(time.Millisecond).String(), "err", err)
	})
	if err != nil {
		return nil, fmt.Errorf("opening the database: %w", err)
	}
	return st, nil
}

// listenURL is the URL a browser on this machine reaches addr at.
func listenURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// Timeouts of the HTTP servers. readTimeout bounds the whole request,
// body included, so that a client sending a byte now and then cannot hold a
// connection (and its goroutine) for ever; the largest admin body (2 MiB)
// takes far less on any working link.
var (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	idleTimeout       = 2 * time.Minute
)

// newHTTPServer is the http.Server of both the server and the proxy,
// served with httpx.ServeCoalescing: complete answers leave in one write.
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
}

// serve serves h on ln and runs background work until ctx is cancelled,
// then shuts down gracefully: in-flight requests finish, background work
// gets to flush.
func serve(ctx context.Context, log *slog.Logger, ln net.Listener, h http.Handler, background func(context.Context) error, onShutdown ...func()) error {
	hs := newHTTPServer(h, log)
	for _, f := range onShutdown {
		hs.RegisterOnShutdown(f) // ends long-lived streams, which Shutdown would wait for
	}
	bgCtx, stopBg := context.WithCancel(context.Background())
	bgDone := make(chan error, 1)
	go func() { bgDone <- background(bgCtx) }()
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpx.ServeCoalescing(hs, ln) }()
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
	err := hs.Shutdown(shutCtx)
	stopBg()
	if bgErr := <-bgDone; bgErr != nil && !errors.Is(bgErr, context.Canceled) {
		log.Warn("background work ended with an error", "err", bgErr)
	}
	return err
}

func newLogger(w io.Writer, json bool, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if json {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
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
