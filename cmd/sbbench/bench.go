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
	turns        []turn // with the plain handler it is compared with
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

// measure runs one load measurement against a process: the fastest of
// the bench's windows. With unique set, every request carries a new value
// of that query parameter (a new context for a proxy, so nothing can be
// answered from a cache).
func (b *bench) measure(target, what string, n int, pid int, method, url string, body []byte, header http.Header, unique ...string) (load.Result, error) {
	return b.measureBeside(nil, target, what, n, pid, method, url, body, header, unique...)
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
	body, err := json.Marshal(fixture.Features(n, 1))
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
	postBody := []byte(`{"context":{"userId":"123","sessionId":"s-1","properties":{"country":"no","age":"30"}}}`)
	const query = "/proxy?userId=123&sessionId=s-1&properties%5Bcountry%5D=no&properties%5Bage%5D=30"
	const newUserQuery = "/proxy?sessionId=s-1&properties%5Bcountry%5D=no&properties%5Bage%5D=30"

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
	// The plain handler serves the proxy's own GET answer, in turns with
	// each of its rows.
	answer, err := fetch(base+query, key)
	if err != nil {
		return err
	}
	plain, err := b.startPlain("same bytes as GET /proxy", n, answer, query, nil)
	if err != nil {
		return err
	}
	defer plain.proc.stop()
	first := len(b.rows)
	if _, err := b.measureBeside(plain, "signalbox proxy", "GET /proxy", n, proxy.pid(), "GET", base+query, nil, key); err != nil {
		return err
	}
	if _, err := b.measureBeside(plain, "signalbox proxy", "POST /proxy", n, proxy.pid(), "POST", base+"/proxy", postBody, key); err != nil {
		return err
	}
	// A new user each request, as many users each polling with their own
	// id: the answer cache cannot help, and the flags that read the user id
	// (rollouts, user lists, sticky variants) give other answers.
	if _, err := b.measureBeside(plain, "signalbox proxy", "GET /proxy, new context each request", n, proxy.pid(), "GET", base+newUserQuery, nil, key, "userId"); err != nil {
		return err
	}
	plain.finish(b)
	b.noteBeside("plain", first, first+1, first+2)

	if b.refDir == "" {
		return nil
	}
	refAddr, err := freeAddr()
	if err != nil {
		return err
	}
	_, refPort, _ := net.SplitHostPort(refAddr)
	ref, err := startChild("@unleash/proxy", pinned(serverCPU, "node", filepath.Join(b.refDir, "reference-proxy.cjs")), []string{
		"UNLEASH_URL=" + up + "/api", "UNLEASH_API_TOKEN=" + clientToken, "UNLEASH_PROXY_CLIENT_KEYS=" + clientKey, "PORT=" + refPort,
	})
	if err != nil {
		return err
	}
	defer ref.stop()
	if err := ref.waitHTTP("http://"+refAddr+"/proxy/health", nil); err != nil {
		return err
	}
	refGet, err := b.measure("@unleash/proxy", "GET /proxy", n, ref.pid(), "GET", "http://"+refAddr+query, nil, key)
	if err != nil {
		return err
	}
	refPost, err := b.measure("@unleash/proxy", "POST /proxy", n, ref.pid(), "POST", "http://"+refAddr+"/proxy", postBody, key)
	if err != nil {
		return err
	}
	for i := range b.rows {
		r := &b.rows[i]
		if r.target == "signalbox proxy" && r.flags == n {
			ref := refGet
			if strings.HasPrefix(r.what, "POST") {
				ref = refPost
			}
			if r.note != "" {
				r.note += ", "
			}
			r.note += timesRef(r.res, ref, "reference")
		}
	}
	return nil
}

func (b *bench) serverRound(n int) error {
	dataDir := filepath.Join(b.dir, fmt.Sprintf("server-%d", n))
	st, err := sqlstore.Open(b.ctx, filepath.Join(dataDir, "signalbox.db"))
	if err != nil {
		return err
	}
	_, err = server.Bootstrap(b.ctx, st, server.BootstrapConfig{ClientTokens: []string{clientToken}, FrontendTokens: []string{frontendToken}, AdminPassword: "Bench-Password-7"})
	if err == nil {
		err = fixture.Seed(b.ctx, st, fixture.Features(n, 1), store.EnvDevelopment)
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
	const frontendQuery = "/api/frontend?userId=123&sessionId=s-1"
	// Plain handlers serving the same bytes as the 200 answers and the
	// frontend answer, and a 304 with no body, each measured in turns with
	// the rows compared with it.
	frontendAnswer, err := fetch(base+frontendQuery, fh)
	if err != nil {
		return err
	}
	plainFrontend, err := b.startPlain(fmt.Sprintf("same bytes as GET /api/frontend, %d bytes", len(frontendAnswer)), n, frontendAnswer, frontendQuery, nil)
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
		if plainClient[i], err = b.startPlain(what, n, body, "/api/client/features", nil); err != nil {
			return err
		}
		defer plainClient[i].proc.stop()
	}
	plainClient[2], err = b.startPlain("304 for its ETag, no body", n, nil, "/api/client/features", http.Header{"If-None-Match": {plainETag}})
	if err != nil {
		return err
	}
	defer plainClient[2].proc.stop()

	first := len(b.rows)
	for _, m := range []struct {
		what, path string
		h          http.Header
		plain      *plainHandler
		unique     []string
	}{
		{"GET /api/client/features (200)", "/api/client/features", h, plainClient[0], nil},
		{"GET /api/client/features (200, gzip)", "/api/client/features", gz, plainClient[1], nil},
		{"GET /api/client/features (304)", "/api/client/features", cond, plainClient[2], nil},
		{"GET /api/frontend", frontendQuery, fh, plainFrontend, nil},
		{"GET /api/frontend, new context each request", "/api/frontend?sessionId=s-1", fh, plainFrontend, []string{"userId"}},
	} {
		if _, err := b.measureBeside(m.plain, "signalbox server", m.what, n, srv.pid(), "GET", base+m.path, nil, m.h, m.unique...); err != nil {
			return err
		}
	}
	plainFrontend.finish(b)
	b.noteBeside("plain", first+3, first+4)
	plainClient[0].finish(b)
	b.noteBeside("plain", first)
	plainClient[1].finish(b)
	b.noteBeside("plain", first+1)
	plainClient[2].finish(b)
	b.noteBeside("plain 304", first+2)
	if b.unleashDir == "" {
		return nil
	}
	srv.stop() // the reference runs alone on the servers' CPU
	return b.unleashRound(n, first)
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
	fmt.Fprintf(w, "\n%d connections, each row the fastest of %d windows of %v (a plain handler's row: of all its windows), load generator on the other CPU(s). Reference: %s.\n", b.conc, max(b.windows, 1), b.dur, refText(b))
	fmt.Fprintf(w, "A row compared with a plain handler is measured in turns with it, window by window; its ratio is the median of the turns' ratios (each window of ours against the plain handler's right after it), and their range.\n")
	fmt.Fprintf(w, "CPU per request is the server process's own CPU time over the row (all its threads; not Unleash's PostgreSQL) per answer, and how busy that kept its core.\n")
	fmt.Fprintf(w, "Private memory is the anonymous part of RSS (heap, stacks); the rest is the executable's pages, shared through the page cache.\n")
}

// timesRef notes how many times a reference's rate ours is, and how many
// times its CPU per request ours is. The references keep their core busy
// in every row, where ours often wait on the load generator, so the second
// is the fairer figure; it leaves out the CPU of processes the reference
// uses besides its own (Unleash's PostgreSQL), which only flatters it.
func timesRef(ours, ref load.Result, what string) string {
	note := times(ours.RequestsPerSec/ref.RequestsPerSec) + " " + what
	if r, ok := cpuRatio(ours, ref); ok {
		note += " (" + times(r) + " by CPU)"
	}
	return note
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
