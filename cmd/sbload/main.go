// Command sbload is a bounded load generator for Signalbox benchmarks. It
// only sends requests to this machine (the URL must be or resolve to a
// loopback address), and every run ends by itself: after -n requests
// (at most 10,000,000) or -d time (at most 10 minutes), whichever is first.
//
//	sbload -url http://127.0.0.1:3063/proxy -H 'Authorization: key' -c 16 -d 30s
//	sbload -url http://127.0.0.1:3063/proxy -body @context.json -H 'Content-Type: application/json' -n 100000 -json
//	sbload -url http://127.0.0.1:4242/api/client/features -H 'Authorization: token' -n 50000 -pid 1234
//
// The measuring itself lives in internal/load, which Go benchmarks can call
// directly; this file only turns flags into a load.Config and prints.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/load"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code (0 done,
// 1 failed, 2 bad usage), so tests can call it.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sbload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg      load.Config
		body     string
		headers  headerFlag
		asJSON   bool
		duration time.Duration
	)
	fs.StringVar(&cfg.URL, "url", "", "target `URL`; must be on this machine (127.0.0.1, ::1, localhost)")
	fs.StringVar(&cfg.Method, "method", "", "HTTP method (default GET, or POST with -body)")
	fs.StringVar(&body, "body", "", "request body: inline text, or @path to read a file")
	fs.Var(&headers, "H", "request header `'Name: value'`; repeatable")
	fs.IntVar(&cfg.Concurrency, "c", 1, fmt.Sprintf("concurrent workers, each with one request in flight (max %d)", load.MaxConcurrency))
	fs.IntVar(&cfg.Requests, "n", 0, fmt.Sprintf("total requests (max %d)", load.MaxRequests))
	fs.DurationVar(&duration, "d", 0, fmt.Sprintf("run time (max %s); default 10s when -n is not set either", load.MaxDuration))
	fs.DurationVar(&cfg.Timeout, "timeout", load.DefaultTimeout, "timeout of each request")
	fs.BoolVar(&cfg.Insecure, "k", false, "skip TLS certificate checks (self-signed https on loopback)")
	fs.IntVar(&cfg.PID, "pid", 0, "`pid` of the server: report its RSS before and after, and its peak RSS (Linux)")
	fs.StringVar(&cfg.UniqueParam, "unique", "", "query `parameter` given a new value on every request (defeats answer caches)")
	fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "sbload: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if cfg.URL == "" {
		fmt.Fprintln(stderr, "sbload: -url is required")
		return 2
	}
	cfg.Duration = duration
	if cfg.Requests == 0 && cfg.Duration == 0 {
		cfg.Duration = 10 * time.Second
	}
	cfg.Header = http.Header(headers)
	if strings.HasPrefix(body, "@") {
		b, err := os.ReadFile(body[1:])
		if err != nil {
			fmt.Fprintf(stderr, "sbload: -body: %v\n", err)
			return 2
		}
		cfg.Body = b
	} else {
		cfg.Body = []byte(body)
	}

	res, err := load.Run(ctx, cfg)
	if err != nil && res.Requests+res.Errors == 0 {
		fmt.Fprintf(stderr, "sbload: %v\n", err)
		return 1
	}
	// An interrupted run still prints what it measured.
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		_ = res.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "sbload: %v\n", err)
		return 1
	}
	return 0
}

// headerFlag collects repeated -H 'Name: value' flags.
type headerFlag http.Header

func (h *headerFlag) String() string { return "" }

func (h *headerFlag) Set(s string) error {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return fmt.Errorf("header %q: want 'Name: value'", s)
	}
	if *h == nil {
		*h = headerFlag{}
	}
	http.Header(*h).Add(name, strings.TrimSpace(value))
	return nil
}
