package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/signalbox/signalbox/internal/buildinfo"
)

// runHealthcheck asks the local server's /health and succeeds only on a
// 200. It is the container image's HEALTHCHECK: the image has no shell or
// curl, so the binary checks itself.
func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return healthcheck(ctx, args, os.Getenv, stdout, stderr)
}

func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	target := fs.String("url", "", "URL to check (default http://127.0.0.1:$PORT/health, PORT defaulting to 4242, the host from HTTP_HOST when set)")
	timeout := fs.Duration("timeout", 3*time.Second, "How long to wait for the answer")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	if *timeout <= 0 {
		return usageError{fmt.Errorf("-timeout must be positive")}
	}
	u := *target
	if u == "" {
		var err error
		if u, err = localHealthURL(getenv); err != nil {
			return usageError{err}
		}
	}
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return usageError{fmt.Errorf("-url %q is not an http or https URL", u)}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return usageError{err}
	}
	req.Header.Set("User-Agent", buildinfo.UserAgent("healthcheck"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", u, err)
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", u, res.Status)
	}
	fmt.Fprintf(stdout, "%s: %s\n", u, res.Status)
	return nil
}

// localHealthURL is the server's /health on this machine, from the
// server's own PORT and HTTP_HOST.
func localHealthURL(getenv func(string) string) (string, error) {
	port := defaultServerPort
	if v := strings.TrimSpace(getenv("PORT")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("PORT: %q is not a port number", v)
		}
		port = n
	}
	host := strings.Trim(strings.TrimSpace(getenv("HTTP_HOST")), "[]")
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/health", nil
}
