// Command unleashopenapi writes the OpenAPI document of the open-source
// unleash-server pinned in test/unleash (what it serves at
// /docs/openapi.json), for the server's contract tests. It starts that
// server once on a throwaway PostgreSQL, fetches the document, checks that
// it is the expected version's, writes it and stops both.
//
//	go run ./cmd/unleashopenapi -out "$cache/unleash-server-8.2-openapi.json"
//
// scripts/test.sh runs it when the document is not already cached.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/signalbox/signalbox/internal/pgtest"
)

func main() {
	dir := flag.String("dir", "test/unleash", "directory of the pinned unleash-server (npm ci run there)")
	out := flag.String("out", "", "file to write the document to (required)")
	want := flag.String("version", "8.2.0", "the info.version the document must have")
	wait := flag.Duration("timeout", 4*time.Minute, "how long to wait for unleash-server to serve the document")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir, *out, *want, *wait); err != nil {
		fmt.Fprintln(os.Stderr, "unleashopenapi:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir, out, want string, wait time.Duration) error {
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "unleash-server", "package.json")); err != nil {
		return fmt.Errorf("unleash-server is not installed: run (cd %s && npm ci --ignore-scripts): %w", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("node is needed to run unleash-server: %w", err)
	}
	pg, err := pgtest.StartCluster()
	if err != nil {
		return fmt.Errorf("PostgreSQL for unleash-server: %w", err)
	}
	defer pg.Stop()
	dbURL, err := pg.NewDatabase(fmt.Sprintf("unleash_openapi_%d", os.Getpid()))
	if err != nil {
		return err
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	var logs bytes.Buffer
	cmd := exec.Command(node, "start.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"DATABASE_HOST="+u.Query().Get("host"), "DATABASE_USERNAME="+u.User.Username(),
		"DATABASE_NAME="+strings.TrimPrefix(u.Path, "/"), "DATABASE_SSL=false",
		"HTTP_HOST=127.0.0.1", "HTTP_PORT="+strconv.Itoa(port), "ENABLE_OAS=true",
		"LOG_LEVEL=warn", "CHECK_VERSION=false", "SEND_TELEMETRY=false", "TZ=UTC",
	)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting unleash-server: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	}()
	doc, err := fetch(ctx, fmt.Sprintf("http://127.0.0.1:%d/docs/openapi.json", port), wait, exited)
	if err != nil {
		return fmt.Errorf("%w; unleash-server's output:\n%s", err, logs.String())
	}
	var parsed struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &parsed); err != nil {
		return fmt.Errorf("the document is not JSON: %w", err)
	}
	if parsed.Info.Version != want || !strings.HasPrefix(parsed.OpenAPI, "3.") || len(parsed.Paths) == 0 {
		return fmt.Errorf("the document is OpenAPI %q of version %q with %d paths; want version %s", parsed.OpenAPI, parsed.Info.Version, len(parsed.Paths), want)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, doc, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// fetch polls the document until unleash-server serves it.
func fetch(ctx context.Context, u string, wait time.Duration, exited <-chan struct{}) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var last error
	for {
		body, err := get(ctx, u)
		if err == nil {
			return body, nil
		}
		last = err
		select {
		case <-exited:
			return nil, errors.New("unleash-server exited")
		case <-ctx.Done():
			return nil, fmt.Errorf("%s not served in %s: %w", u, wait, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", u, res.Status)
	}
	return body, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
