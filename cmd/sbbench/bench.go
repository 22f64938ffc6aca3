package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/fixture"
	"github.com/signalbox/signalbox/internal/load"
	"github.com/signalbox/signalbox/internal/pgtest"
	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

const (
	clientToken   = "default:development.bench-client"
	frontendToken = "default:development.bench-frontend"
	clientKey     = "bench-key"
	serverCPU     = "0" // every server under test runs on this CPU
	// serverCPUNumber is serverCPU as a number.
	serverCPUNumber = 0
)

// row is one measured line of the report.
type row struct {
	target, what string
	flags        int
	res          load.Result
	note         string
}

type bench struct {
	ctx      context.Context
	bin      string
	dir      string
	dur      time.Duration
	windows  int // each row is the best of this many windows of dur
	conc     int
	refDir   string // test/compat with node_modules, or "" to skip the reference
	rows     []row
	upstream *http.Server
	// unleashDir is test/unleash with unleash-server installed, or "" to
	// skip the reference server; pg is its PostgreSQL, once started.
	unleashDir string
	pg         *pgtest.Cluster
	// profileDir, when set, receives a CPU profile of every signalbox
	// process the benchmark runs (see profiled).
	profileDir string
	// mix selects the realistic mix (fixture.Mix) and its queries instead
	// of the generated payload (fixture.Features) and its context.
	mix bool
}

// payload is the configuration of n flags every server, proxy and
// reference of the run serves.
func (b *bench) payload(n int) *clientapi.Features {
	if b.mix {
		return fixture.Mix(n)
	}
	return fixture.Features(n, 1)
}

// queries are a run's requests: the same context each time (query, and
// post for POST /proxy) and the part of a new context that stays (fixed;
// the load generator adds a new userId to each request), for the proxy
// and the frontend API.
type queries struct {
	proxy, proxyNew, frontend, frontendNew string
	post                                   []byte
}

func (b *bench) queries() queries {
	if b.mix {
		return queries{
			proxy: "/proxy?userId=u&sessionId=s", proxyNew: "/proxy?sessionId=s",
			frontend: "/api/frontend?userId=u&sessionId=s", frontendNew: "/api/frontend?sessionId=s",
			post: []byte(`{"context":{"userId":"u","sessionId":"s"}}`),
		}
	}
	return queries{
		proxy:    "/proxy?userId=123&sessionId=s-1&properties%5Bcountry%5D=no&properties%5Bage%5D=30",
		proxyNew: "/proxy?sessionId=s-1&properties%5Bcountry%5D=no&properties%5Bage%5D=30",
		frontend: "/api/frontend?userId=123&sessionId=s-1", frontendNew: "/api/frontend?sessionId=s-1",
		post: []byte(`{"context":{"userId":"123","sessionId":"s-1","properties":{"country":"no","age":"30"}}}`),
	}
}

func newBench(ctx context.Context, bin string, dur time.Duration, conc int, withRef bool) (*bench, error) {
	dir, err := os.MkdirTemp("", "sbbench-")
	if err != nil {
		return nil, err
	}
	b := &bench{ctx: ctx, bin: bin, dir: dir, dur: dur, conc: conc}
	if b.bin == "" {
		b.bin = filepath.Join(dir, "signalbox")
		// The release build (make build): static, so the proxy's RSS holds
		// no C library pages.
		build := exec.Command("go", "build", "-trimpath", "-o", b.bin, "./cmd/signalbox")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return nil, fmt.Errorf("building signalbox (run from the repository root): %w", err)
		}
	}
	if err := loadAsFromDisk(b.bin); err != nil {
		return nil, fmt.Errorf("dropping %s from the page cache: %w", b.bin, err)
	}
	if withRef {
		if _, err := exec.LookPath("node"); err == nil {
			if _, err := os.Stat("test/compat/node_modules/@unleash/proxy"); err == nil {
				b.refDir, _ = filepath.Abs("test/compat")
			}
		}
		b.unleashDir = unleashDir()
	}
	return b, nil
}

// profiled is env, plus the file a signalbox process of the given mode
// and flag count writes its CPU profile to when profiles are asked for.
func (b *bench) profiled(mode string, n int, env ...string) []string {
	if b.profileDir == "" {
		return env
	}
	return append(env, fmt.Sprintf("SIGNALBOX_CPU_PROFILE=%s/%s-%d.pprof", b.profileDir, mode, n))
}

func (b *bench) close() {
	if b.pg != nil {
		b.pg.Stop()
	}
	os.RemoveAll(b.dir)
}

func (b *bench) run(sizes []int) error {
	for _, n := range sizes {
		fmt.Fprintf(os.Stderr, "sbbench: %d flags\n", n)
		if err := b.proxyRound(n); err != nil {
			return err
		}
		if err := b.serverRound(n); err != nil {
			return err
		}
	}
	return nil
}

// config is the load of one window.
func (b *bench) config(pid int, method, url string, body []byte, header http.Header, unique ...string) load.Config {
	cfg := load.Config{
		URL: url, Method: method, Body: body, Header: header,
		Concurrency: b.conc, Duration: b.dur, PID: pid,
	}
	if len(unique) > 0 {
		cfg.UniqueParam = unique[0]
	}
	return cfg
}

// window runs one window of load; every answer must be a 200 or 304.
func (b *bench) window(target, what string, cfg load.Config) (load.Result, error) {
	w, err := load.Run(b.ctx, cfg)
	if err != nil {
		return w, fmt.Errorf("%s %s: %w", target, what, err)
	}
	if ok := w.Status[http.StatusOK] + w.Status[http.StatusNotModified]; ok != w.Requests || w.Errors > 0 {
		return w, fmt.Errorf("%s %s: statuses %v, %d errors", target, what, w.Status, w.Errors)
	}
	return w, nil
}

// betterWindow is the row's result so far (best) against a new window (w):
// the faster window's rate, latency and CPU (the machine's other work only
// ever slows a window down, so the faster one is the closer to what the
// server does), with the memory before the row's first window and after
// its last.
func betterWindow(best, w load.Result, first bool) load.Result {
	if first {
		return w
	}
	before := best.Memory
	if w.RequestsPerSec > best.RequestsPerSec {
		best = w
	}
	if before != nil && w.Memory != nil {
		m := *w.Memory
		m.Before = before.Before
		best.Memory = &m
	}
	return best
}

// startUpstream serves a generated payload of n flags as a client API.
func (b *bench) startUpstream(n int) (string, error) {
	body, err := json.Marshal(b.payload(n))
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/client/features", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"bench"`)
		if r.Header.Get("If-None-Match") == `"bench"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
	mux.HandleFunc("POST /api/client/", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusAccepted)
	})
	b.upstream = &http.Server{Handler: mux}
	go b.upstream.Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

func (b *bench) proxyRound(n int) error {
	up, err := b.startUpstream(n)
	if err != nil {
		return err
	}
	defer b.upstream.Close()
	key := http.Header{"Authorization": {clientKey}, "Content-Type": {"application/json"}}
	q := b.queries()
	postBody, query, newUserQuery := q.post, q.proxy, q.proxyNew

	addr, err := freeAddr()
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(addr)
	proxy, err := startChild("signalbox proxy", pinned(serverCPU, b.bin, "proxy"), b.profiled("proxy", n,
		"PORT="+port, "SERVICE_URL="+up+"/api", "SERVICE_API_TOKEN="+clientToken,
		"SERVICE_PROXY_CLIENT_KEYS="+clientKey, "SIGNALBOX_PROXY_BACKUP_DIR="+b.dir, "LOG_LEVEL=error",
	))
	if err != nil {
		return err
	}
	defer proxy.stop()
	base := "http://" + addr
	if err := proxy.waitHTTP(base+"/proxy/health", nil); err != nil {
		return err
	}
	// The plain handler serves the proxy's own GET answer, and the
	// reference (when installed) waits beside it, paused but for its
	// windows: both are measured in turns with each of the proxy's rows.
	answer, err := fetch(base+query, key)
	if err != nil {
		return err
	}
	plain, err := b.startPlain("same bytes as GET /proxy", "plain", n, answer, query, nil)
	if err != nil {
		return err
	}
	defer plain.proc.stop()
	var refGet, refPost *companion
	if b.refDir != "" {
		ref, refBase, err := b.startReferenceProxy(up)
		if err != nil {
			return err
		}
		defer ref.stop()
		// The reference answers from no cache: its GET is what a new
		// context costs it as well.
		refGet = &companion{target: "@unleash/proxy", what: "GET /proxy", flags: n, label: "reference", ref: true,
			cfg: b.config(ref.pid(), "GET", refBase+query, nil, key), paused: ref}
		refPost = &companion{target: "@unleash/proxy", what: "POST /proxy", flags: n, label: "reference", ref: true,
			cfg: b.config(ref.pid(), "POST", refBase+"/proxy", postBody, key), paused: ref}
		ref.pause()
	}
	if err := b.measureBeside(besides(&plain.companion, refGet), "signalbox proxy", "GET /proxy", n, proxy.pid(), "GET", base+query, nil, key); err != nil {
		return err
	}
	if err := b.measureBeside(besides(&plain.companion, refPost), "signalbox proxy", "POST /proxy", n, proxy.pid(), "POST", base+"/proxy", postBody, key); err != nil {
		return err
	}
	// A new user each request, as many users each polling with their own
	// id: the answer cache cannot help, and the flags that read the user id
	// (rollouts, user lists, sticky variants) give other answers.
	if err := b.measureBeside(besides(&plain.companion, refGet), "signalbox proxy", "GET /proxy, new context each request", n, proxy.pid(), "GET", base+newUserQuery, nil, key, "userId"); err != nil {
		return err
	}
	plain.finish(b)
	if refGet != nil {
		b.rows = append(b.rows, refGet.row(), refPost.row())
	}
	return nil
}

// startReferenceProxy starts @unleash/proxy from test/compat on the
// servers' CPU, reading upstream up; it returns the process and its base
// URL.
func (b *bench) startReferenceProxy(up string) (*child, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, "", err
	}
	_, port, _ := net.SplitHostPort(addr)
	ref, err := startChild("@unleash/proxy", pausable(pinned(serverCPU, "node", filepath.Join(b.refDir, "reference-proxy.cjs"))), []string{
		"UNLEASH_URL=" + up + "/api", "UNLEASH_API_TOKEN=" + clientToken, "UNLEASH_PROXY_CLIENT_KEYS=" + clientKey, "PORT=" + port,
	})
	if err != nil {
		return nil, "", err
	}
	base := "http://" + addr
	if err := ref.waitHTTP(base+"/proxy/health", nil); err != nil {
		ref.stop()
		return nil, "", err
	}
	return ref, base, nil
}

func (b *bench) serverRound(n int) error {
	dataDir := filepath.Join(b.dir, fmt.Sprintf("server-%d", n))
	st, err := sqlstore.Open(b.ctx, filepath.Join(dataDir, "signalbox.db"))
	if err != nil {
		return err
	}
	_, err = server.Bootstrap(b.ctx, st, server.BootstrapConfig{ClientTokens: []string{clientToken}, FrontendTokens: []string{frontendToken}, AdminPassword: "Bench-Password-7"})
	if err == nil {
		err = fixture.Seed(b.ctx, st, b.payload(n), store.EnvDevelopment)
	}
	st.Close()
	if err != nil {
		return err
	}
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(addr)
	srv, err := startChild("signalbox server", pinned(serverCPU, b.bin, "server"), b.profiled("server", n,
		"PORT="+port, "HTTP_HOST="+host, "DATA_DIR="+dataDir, "LOG_LEVEL=error",
	))
	if err != nil {
		return err
	}
	defer srv.stop()
	base := "http://" + addr
	if err := srv.waitHTTP(base+"/ready", nil); err != nil {
		return err
	}
	h := http.Header{"Authorization": {clientToken}, "Accept-Encoding": {"identity"}}
	gz := http.Header{"Authorization": {clientToken}, "Accept-Encoding": {"gzip"}}
	etag, err := fetchETag(base+"/api/client/features", h)
	if err != nil {
		return err
	}
	cond := http.Header{"Authorization": {clientToken}, "If-None-Match": {etag}}
	fh := http.Header{"Authorization": {frontendToken}}
	frontendQuery := b.queries().frontend
	// Plain handlers serving the same bytes as the 200 answers and the
	// frontend answer, and a 304 with no body, and the reference server
	// (when installed, paused but for its windows) beside ours, each
	// measured in turns with the rows compared with it.
	frontendAnswer, err := fetch(base+frontendQuery, fh)
	if err != nil {
		return err
	}
	plainFrontend, err := b.startPlain(fmt.Sprintf("same bytes as GET /api/frontend, %d bytes", len(frontendAnswer)), "plain", n, frontendAnswer, frontendQuery, nil)
	if err != nil {
		return err
	}
	defer plainFrontend.proc.stop()
	var plainClient [3]*plainHandler // 200, gzip, 304
	for i, hd := range []http.Header{h, gz} {
		body, err := fetch(base+"/api/client/features", hd)
		if err != nil {
			return err
		}
		what := fmt.Sprintf("same bytes as %s, %d bytes", []string{"(200)", "(200, gzip)"}[i], len(body))
		if plainClient[i], err = b.startPlain(what, "plain", n, body, "/api/client/features", nil); err != nil {
			return err
		}
		defer plainClient[i].proc.stop()
	}
	plainClient[2], err = b.startPlain("304 for its ETag, no body", "plain 304", n, nil, "/api/client/features", http.Header{"If-None-Match": {plainETag}})
	if err != nil {
		return err
	}
	defer plainClient[2].proc.stop()
	var unleash *unleashServer
	if b.unleashDir != "" {
		if unleash, err = b.startUnleash(n); err != nil {
			return err
		}
		defer unleash.proc.stop()
	}
	for _, m := range []struct {
		what, path string
		h          http.Header
		beside     []*companion
		unique     []string
	}{
		{"GET /api/client/features (200)", "/api/client/features", h, besides(&plainClient[0].companion, unleash.row(0)), nil},
		{"GET /api/client/features (200, gzip)", "/api/client/features", gz, besides(&plainClient[1].companion, unleash.row(1)), nil},
		{"GET /api/client/features (304)", "/api/client/features", cond, besides(&plainClient[2].companion, unleash.row(2)), nil},
		{"GET /api/frontend", frontendQuery, fh, besides(&plainFrontend.companion), nil},
		{"GET /api/frontend, new context each request", b.queries().frontendNew, fh, besides(&plainFrontend.companion), []string{"userId"}},
	} {
		if err := b.measureBeside(m.beside, "signalbox server", m.what, n, srv.pid(), "GET", base+m.path, nil, m.h, m.unique...); err != nil {
			return err
		}
	}
	plainFrontend.finish(b)
	for _, p := range plainClient {
		p.finish(b)
	}
	unleash.finish(b)
	return nil
}

func fetch(url string, h http.Header) ([]byte, error) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header = h
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

func fetchETag(url string, h http.Header) (string, error) {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header = h
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	if e := res.Header.Get("ETag"); e != "" {
		return e, nil
	}
	return "", fmt.Errorf("no ETag from %s", url)
}

// report prints the Markdown table.
func (b *bench) report(w io.Writer) {
	fmt.Fprintf(w, "| server (pinned to 1 CPU) | request | flags | req/s | p50 | p99 | CPU per request (core busy) | RSS after (private) | notes |\n|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range b.rows {
		rss := "–"
		if m := r.res.Memory; m != nil {
			rss = fmt.Sprintf("%.1f MiB", float64(m.After.RSS)/(1<<20))
			if m.After.Anon > 0 {
				rss += fmt.Sprintf(" (%.1f)", float64(m.After.Anon)/(1<<20))
			}
		}
		cpu := "–"
		if r.res.TargetCPU > 0 {
			cpu = fmt.Sprintf("%s (%.0f%%)", cpuDur(r.res.CPUPerRequest()), 100*r.res.TargetCPUShare())
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.0f | %s | %s | %s | %s | %s |\n", r.target, r.what, r.flags, r.res.RequestsPerSec,
			dur(r.res.Latency.P50), dur(r.res.Latency.P99), cpu, rss, r.note)
	}
	fmt.Fprintf(w, "\n%d connections, each row the fastest of %d windows of %v (a plain handler's or a reference's row: of all its windows), load generator on the other CPU(s). Reference: %s.\n", b.conc, max(b.windows, 1), b.dur, refText(b))
	fmt.Fprintf(w, "A row of ours is measured in turns with the plain handler and the reference it is compared with, window by window; each ratio is the median of the turns' ratios (each window of ours against theirs right after it), and their range.\n")
	fmt.Fprintf(w, "CPU per request is the server process's own CPU time over the row (all its threads; not Unleash's PostgreSQL) per answer, and how busy that kept its core.\n")
	fmt.Fprintf(w, "Private memory is the anonymous part of RSS (heap, stacks); the rest is the executable's pages, shared through the page cache.\n")
}

// times prints a ratio with a decimal below 100, where goals (20×, 60×)
// are set and rounding could carry a ratio over one.
func times(x float64) string {
	if x < 100 {
		return fmt.Sprintf("%.1f×", x)
	}
	return fmt.Sprintf("%.0f×", x)
}

// cpuRatio is other's CPU per request over ours, when both were measured.
func cpuRatio(ours, other load.Result) (float64, bool) {
	a, b := ours.CPUPerRequest(), other.CPUPerRequest()
	if a <= 0 || b <= 0 {
		return 0, false
	}
	return float64(b) / float64(a), true
}

// cpuDur prints a CPU time per request to a tenth of a microsecond below
// 100 µs, where rows differ by a few.
func cpuDur(d time.Duration) string {
	if d < 100*time.Microsecond {
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
	return dur(d)
}

func refText(b *bench) string {
	var refs []string
	if b.refDir != "" {
		refs = append(refs, "@unleash/proxy 1.4.19 from test/compat")
	}
	if b.unleashDir != "" {
		refs = append(refs, "unleash-server 8.2.0 from test/unleash on PostgreSQL")
	}
	if len(refs) == 0 {
		return "not installed (npm ci in test/compat and test/unleash)"
	}
	return strings.Join(refs, ", ")
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}
