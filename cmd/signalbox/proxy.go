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
	neturl "net/url"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/signalbox/signalbox/engine"
	"github.com/signalbox/signalbox/internal/httpx"
	"github.com/signalbox/signalbox/proxy"
	"github.com/signalbox/signalbox/proxy/jsstrategy"
)

// proxyShutdownTimeout bounds the graceful stop: in-flight requests, then
// the final metrics upload.
const proxyShutdownTimeout = 15 * time.Second

// runProxy runs the evaluation proxy until ctx is cancelled (SIGTERM or
// SIGINT), configured from the environment only, as the reference is.
func runProxy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { proxyUsage(stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected arguments %q: the proxy is configured through environment variables (see -h)", fs.Args())}
	}
	// Malformed values and missing options are reported together.
	cfg, err := proxy.ConfigFromEnv(os.Getenv)
	if err := errors.Join(err, cfg.Validate()); err != nil {
		return usageError{err}
	}
	log := proxy.NewLogger(stderr, cfg.UseJSONLogger, cfg.LogLevel)
	cfg.Logger = log
	cfg.SDKVersion = "signalbox-proxy:" + buildVersion()
	if err := loadScripts(&cfg, log); err != nil {
		return usageError{err}
	}
	p, err := proxy.New(cfg)
	if err != nil {
		return usageError{err}
	}
	port := cfg.Port
	if port == 0 {
		port = proxy.DefaultPort
	}
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	url := listenURL(ln.Addr())
	if b := strings.Trim(cfg.ProxyBasePath, "/ "); b != "" {
		url += "/" + b
	}
	upstream := cfg.ServiceURL
	if u, err := neturl.Parse(upstream); err == nil {
		upstream = u.Redacted() // a password in the URL stays out of logs
	}
	attrs := []any{"version", buildVersion(), "addr", ln.Addr().String(), "url", url + "/proxy", "upstream", upstream}
	if cfg.EnableOAS {
		attrs = append(attrs, "docs", url+"/docs/openapi/")
	}
	// The reference proxy prints its listening line whatever the log
	// level (warn by default), so this one line is written at info through
	// a logger of its own.
	proxy.NewLogger(stderr, cfg.UseJSONLogger, "info").Info("signalbox proxy listening", attrs...)
	return serveNode(ctx, p.Handler(), p.Run, p.Ready, nil, ln, log)
}

// loadScripts turns the strategy and enricher files into Go values.
func loadScripts(cfg *proxy.Config, log *slog.Logger) error {
	opts := jsstrategy.Options{Logger: log}
	if cfg.CustomStrategiesFile != "" {
		strategies, err := jsstrategy.LoadStrategies(cfg.CustomStrategiesFile, opts)
		if err != nil {
			return fmt.Errorf("SERVICE_CUSTOM_STRATEGIES_FILE: %w", err)
		}
		cfg.CustomStrategies = strategies
	}
	if cfg.ExpCustomEnrichersFile != "" {
		enrich, err := jsstrategy.LoadEnrichers(cfg.ExpCustomEnrichersFile, opts)
		if err != nil {
			return fmt.Errorf("EXP_CUSTOM_ENRICHERS_FILE: %w", err)
		}
		cfg.Enrichers = []func(*engine.Context){enrich}
	}
	return nil
}

// serveNode serves a proxy or Edge node on ln and runs its sync loops
// (run); when ctx ends it stops accepting requests (calling onShutdown,
// when set, as shutdown begins), finishes those in flight, and lets run
// flush the metrics it holds. Once the node is ready its memory is
// settled (see settleNode).
func serveNode(ctx context.Context, handler http.Handler, run func(context.Context) error, ready func() bool, onShutdown func(), ln net.Listener, log *slog.Logger) error {
	tuneGC := os.Getenv("GOGC") == ""
	if tuneGC {
		debug.SetGCPercent(nodeStartGCPercent)
	}
	go settleNode(ctx, ready, tuneGC, log)
	srv := newHTTPServer(handler, log)
	if onShutdown != nil {
		srv.RegisterOnShutdown(onShutdown) // ends streams, which would hold the shutdown
	}
	// Every proxy answer is small and computed from memory.
	srv.WriteTimeout = 30 * time.Second
	// A node's bodies are small too (SDK contexts and metrics, 1 MiB at
	// most by default): the whole request is read within the headers'
	// time. With the two bounds equal, net/http sets one read deadline per
	// request instead of two (about 0.2 µs each; setting deadlines took 3%
	// of the CPU of a 60-flag answer).
	srv.ReadTimeout = srv.ReadHeaderTimeout
	// Run gets its own context, cancelled only once the server has drained:
	// requests still in flight at SIGTERM are counted before the final
	// metrics upload, not after it.
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	defer stopRun()
	runDone := make(chan error, 1)
	go func() { runDone <- run(runCtx) }()
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpx.ServeCoalescing(srv, ln) }()

	select {
	case err := <-serveErr:
		// The listener failed: there is nothing left to serve.
		stopRun()
		return errors.Join(err, <-runDone)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), proxyShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(shutdown)
	<-serveErr // http.ErrServerClosed once Shutdown has begun
	stopRun()
	select {
	case rerr := <-runDone:
		err = errors.Join(err, rerr)
	case <-shutdown.Done():
		err = errors.Join(err, errors.New("the final metrics upload did not finish in time"))
	}
	return err
}

func proxyUsage(w io.Writer) {
	fmt.Fprint(w, `usage: signalbox proxy

Runs the evaluation proxy for browser and mobile SDKs, a drop-in for
@unleash/proxy. It is configured through these environment variables
(a SERVICE_X variable may also be given as UNLEASH_X):

`)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tDEFAULT\tMEANING")
	for _, ev := range proxy.EnvVars() {
		def := ev.Default
		if def == "" {
			def = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", ev.Name, def, ev.Help)
	}
	_ = tw.Flush()
}
