package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/signalbox/signalbox/proxy"
	"github.com/signalbox/signalbox/server"
	"github.com/signalbox/signalbox/store"
	"github.com/signalbox/signalbox/store/sqlstore"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// longSecret is long enough for an INIT_* token.
const longSecret = "0123456789abcdef0123456789abcdef"

// TestServerEnvEveryVariable sets each variable of the table and checks
// where it lands. A variable added to the table without a case here fails
// the test.
func TestServerEnvEveryVariable(t *testing.T) {
	cases := map[string]struct {
		value string
		check func(c serverConfig) bool
	}{
		"PORT":                           {"8080", func(c serverConfig) bool { return c.port == 8080 }},
		"HTTP_HOST":                      {"127.0.0.1", func(c serverConfig) bool { return c.host == "127.0.0.1" }},
		"DATABASE_URL":                   {"postgres://u:p@db/flags", func(c serverConfig) bool { return c.databaseURL == "postgres://u:p@db/flags" }},
		"DATA_DIR":                       {"/var/lib/sb", func(c serverConfig) bool { return c.dataDir == "/var/lib/sb" }},
		"DATABASE_CONNECT_TIMEOUT":       {"90s", func(c serverConfig) bool { return c.connectTimeout == 90*time.Second }},
		"INIT_ADMIN_API_TOKENS":          {"*:*." + longSecret, func(c serverConfig) bool { return cmp.Equal(c.bootstrap.AdminTokens, []string{"*:*." + longSecret}) }},
		"INIT_CLIENT_API_TOKENS":         {"a:b." + longSecret + ", c:d." + longSecret, func(c serverConfig) bool { return len(c.bootstrap.ClientTokens) == 2 }},
		"INIT_FRONTEND_API_TOKENS":       {"a:b." + longSecret, func(c serverConfig) bool { return len(c.bootstrap.FrontendTokens) == 1 }},
		"ADMIN_PASSWORD":                 {"Pass-word-1", func(c serverConfig) bool { return c.bootstrap.AdminPassword == "Pass-word-1" }},
		"UNLEASH_DEFAULT_ADMIN_PASSWORD": {"Other-pass-2", func(c serverConfig) bool { return c.bootstrap.AdminPassword == "Other-pass-2" }},
		"LOG_LEVEL":                      {"DEBUG", func(c serverConfig) bool { return c.logLevel == slog.LevelDebug }},
		"JSON_LOGGER":                    {"1", func(c serverConfig) bool { return c.jsonLogs }},
		"SECURE_COOKIES":                 {"yes", func(c serverConfig) bool { return c.secureCookies }},
		"SIGNALBOX_URL":                  {"https://flags.example.com", func(c serverConfig) bool { return c.publicURL == "https://flags.example.com" }},
		"UNLEASH_URL":                    {"https://u.example.com", func(c serverConfig) bool { return c.publicURL == "https://u.example.com" }},
		"TRUST_PROXY":                    {"10.0.0.0/8, loopback", func(c serverConfig) bool { return c.trustProxy.String() == "10.0.0.0/8,loopback" }},
		"SIGNALBOX_MAX_STREAMS":          {"250", func(c serverConfig) bool { return c.maxStreams == 250 }},
		"SIGNALBOX_STREAM_HEARTBEAT":     {"5s", func(c serverConfig) bool { return c.streamHeartbeat == 5*time.Second }},
		"SIGNALBOX_ADVERTISE_STREAMING":  {"on", func(c serverConfig) bool { return c.advertiseStreaming == server.AdvertiseAll }},
		"ADDON_ALLOWED_HOSTS": {"hooks.internal, 10.1.0.0/16,127.0.0.1", func(c serverConfig) bool {
			return cmp.Equal(c.addonAllowedHosts, []string{"hooks.internal", "10.1.0.0/16", "127.0.0.1"})
		}},
		"METRICS_RETENTION": {"72h", func(c serverConfig) bool { return c.metricsRetention == 72*time.Hour }},
		"UNLEASH_FRONTEND_API_ORIGINS": {"https://a.example.com, ,http://localhost:3000", func(c serverConfig) bool {
			return cmp.Equal(c.frontendOrigins, []string{"https://a.example.com", "http://localhost:3000"})
		}},
	}
	for _, ev := range serverVars {
		tc, ok := cases[ev.Name]
		if !ok {
			t.Errorf("no test case for %s", ev.Name)
			continue
		}
		delete(cases, ev.Name)
		c, err := serverConfigFromEnv(envMap(map[string]string{ev.Name: tc.value}))
		if err != nil {
			t.Errorf("%s=%s: %v", ev.Name, tc.value, err)
			continue
		}
		if !tc.check(c) {
			t.Errorf("%s=%s gave %+v", ev.Name, tc.value, c)
		}
		if ev.Help == "" {
			t.Errorf("%s has no help text", ev.Name)
		}
	}
	for name := range cases {
		t.Errorf("%s is tested but not read", name)
	}
}

func TestServerEnvDefaultsAndAliases(t *testing.T) {
	c, err := serverConfigFromEnv(envMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.port != 4242 || c.dataDir != "data" || c.logLevel != slog.LevelInfo || c.connectTimeout != time.Minute || c.metricsRetention != 48*time.Hour || c.jsonLogs || c.secureCookies || c.trustProxy.Enabled() {
		t.Errorf("defaults %+v", c)
	}
	c, _ = serverConfigFromEnv(envMap(map[string]string{
		"ADMIN_PASSWORD": "first", "UNLEASH_DEFAULT_ADMIN_PASSWORD": "second",
		"SIGNALBOX_URL": "https://a", "UNLEASH_URL": "https://b",
	}))
	if c.bootstrap.AdminPassword != "first" || c.publicURL != "https://a" {
		t.Errorf("the Signalbox names should win over the aliases: %+v", c)
	}
}

// TestServerEnvErrors: a value that does not parse stops the start with
// an error naming the variable and what it accepts, instead of falling
// back to a default.
func TestServerEnvErrors(t *testing.T) {
	short := "default:development.tooshort-secret"
	_, err := serverConfigFromEnv(envMap(map[string]string{
		"LOG_LEVEL": "verbose", "JSON_LOGGER": "sure", "SECURE_COOKIES": "yep", "PORT": "http",
		"TRUST_PROXY": "not-an-ip", "DATABASE_URL": "mysql://db/flags", "DATABASE_CONNECT_TIMEOUT": "soon",
		"ADDON_ALLOWED_HOSTS": "hooks.internal, 10.0.0.0/33, *.corp", "METRICS_RETENTION": "30m",
		"INIT_CLIENT_API_TOKENS": short, "INIT_ADMIN_API_TOKENS": "nodotatall-secret-value",
	}))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		`LOG_LEVEL: "verbose" is not one of debug, info, warn, error, fatal`,
		`JSON_LOGGER: "sure" is not true or false`,
		`SECURE_COOKIES: "yep" is not true or false`,
		"PORT:", "TRUST_PROXY:", "DATABASE_URL:", "DATABASE_CONNECT_TIMEOUT:",
		`ADDON_ALLOWED_HOSTS: "10.0.0.0/33" is not a CIDR prefix`, `"*.corp" is not a host name`,
		`METRICS_RETENTION: "30m" is not a duration from 1h to 2160h`,
		"INIT_CLIENT_API_TOKENS: the secret of client token default:development.toos… has 15 characters; use at least 32",
		"INIT_ADMIN_API_TOKENS: admin token",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
	for _, secret := range []string{"tooshort-secret", "nodotatall-secret-value"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error shows the secret %q:\n%s", secret, msg)
		}
	}
}

// TestBoolSpellingsMatchProxy: the server and the proxy read switches the
// same way, so one environment file can serve both.
func TestBoolSpellingsMatchProxy(t *testing.T) {
	for _, v := range []string{"true", "TRUE", "1", "yes", "on", "false", "0", "no", "off", "maybe", "2", "y"} {
		ours, ourErr := serverConfigFromEnv(envMap(map[string]string{"JSON_LOGGER": v}))
		theirs, theirErr := proxy.ConfigFromEnv(envMap(map[string]string{"JSON_LOGGER": v}))
		if (ourErr == nil) != (theirErr == nil) || ours.jsonLogs != theirs.UseJSONLogger {
			t.Errorf("JSON_LOGGER=%s: server (%v, %v), proxy (%v, %v)", v, ours.jsonLogs, ourErr, theirs.UseJSONLogger, theirErr)
		}
	}
}

func TestServerHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"server", "-h"}, &stdout, &stderr); code != 0 {
		t.Errorf("server -h exited %d: %s", code, stderr.String())
	}
	for _, ev := range serverVars {
		if !strings.Contains(stderr.String(), ev.Name) {
			t.Errorf("server -h does not list %s", ev.Name)
		}
	}
	stderr.Reset()
	if code := run(t.Context(), []string{"server", "-port", "99999"}, &stdout, &stderr); code != 2 {
		t.Errorf("-port 99999 exited %d", code)
	}
}

// TestVersionCommand: "signalbox version" prints the one line of the
// build's version, commit, date and Go version.
func TestVersionCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("version exited %d: %s", code, stderr.String())
	}
	want := regexp.MustCompile(`^signalbox \S+ \(commit \S+, built \S+, go go1\.\S+\)\n$`)
	if !want.MatchString(stdout.String()) {
		t.Errorf("version printed %q", stdout.String())
	}
	if v := buildVersion(); v == "" || strings.ContainsAny(v, " \n") {
		t.Errorf("buildVersion() = %q", v)
	}
}

// TestHealthcheckCommand: exit 0 only when the server on PORT answers
// /health with 200; a stopped server, a wrong answer and bad settings fail.
func TestHealthcheckCommand(t *testing.T) {
	r := startServerCmd(t, map[string]string{"DATA_DIR": t.TempDir(), "ADMIN_PASSWORD": "Strong-Pass-123"})
	u, err := url.Parse(r.url)
	if err != nil {
		t.Fatal(err)
	}
	check := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"healthcheck"}, args...), &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}
	t.Setenv("PORT", u.Port())
	t.Setenv("HTTP_HOST", "0.0.0.0")
	if code, out := check(); code != 0 || !strings.Contains(out, "/health: 200 OK") {
		t.Errorf("healthcheck of a running server on PORT exited %d: %s", code, out)
	}
	if code, out := check("--url", r.url+"/health"); code != 0 {
		t.Errorf("healthcheck --url exited %d: %s", code, out)
	}
	if code, out := check("--url", r.url+"/no-such-page"); code != 1 || !strings.Contains(out, "404") {
		t.Errorf("healthcheck of a 404 exited %d: %s", code, out)
	}
	for _, args := range [][]string{{"--url", "ftp://127.0.0.1/health"}, {"--url", "::"}, {"extra"}, {"--timeout", "0s"}} {
		if code, out := check(args...); code != 2 {
			t.Errorf("healthcheck %q exited %d, want 2: %s", args, code, out)
		}
	}
	t.Setenv("PORT", "70000")
	if code, out := check(); code != 2 || !strings.Contains(out, "PORT") {
		t.Errorf("healthcheck with PORT=70000 exited %d: %s", code, out)
	}
	if code := r.stop(); code != 0 {
		t.Fatalf("server exited %d", code)
	}
	t.Setenv("PORT", u.Port())
	if code, out := check("--timeout", "2s"); code != 1 {
		t.Errorf("healthcheck of a stopped server exited %d: %s", code, out)
	}
}

// syncBuffer is a bytes.Buffer safe for a command writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serverRun is "signalbox server" running in the test process.
type serverRun struct {
	url            string
	stdout, stderr *syncBuffer
	stop           func() int // cancels and returns the exit code
}

var listeningURL = regexp.MustCompile(`msg=listening .*url=(http://\S+)`)

// startServerCmd runs "signalbox server" with env on a free loopback port
// and waits until it listens.
func startServerCmd(t *testing.T, env map[string]string) serverRun {
	t.Helper()
	for k, v := range map[string]string{"PORT": "0", "HTTP_HOST": "127.0.0.1", "LOG_LEVEL": "info"} {
		if _, ok := env[k]; !ok {
			env[k] = v
		}
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := serverRun{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"server"}, r.stdout, r.stderr) }()
	var once sync.Once
	code := 0
	r.stop = func() int {
		once.Do(func() { cancel(); code = <-done })
		return code
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listeningURL.FindStringSubmatch(r.stderr.String()); m != nil {
			r.url = m[1]
			t.Cleanup(func() { r.stop() })
			return r
		}
		select {
		case code := <-done:
			t.Fatalf("server exited %d: %s", code, r.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("server did not listen: %s", r.stderr.String())
	return r
}

// TestServerStartLogs: the start-up lines name the version, the database
// (without its password) and the URLs to open.
func TestServerStartLogs(t *testing.T) {
	dir := t.TempDir()
	r := startServerCmd(t, map[string]string{"DATA_DIR": dir, "ADMIN_PASSWORD": "Strong-Pass-123"})
	logs := r.stderr.String()
	for _, want := range []string{
		`msg="starting signalbox server" version=`,
		"database=sqlite location=" + filepath.Join(dir, "signalbox.db"),
		"url=" + r.url, "docs=" + r.url + "/docs/openapi/",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
	if !strings.Contains(logs, `msg="starting signalbox server" version=`+buildVersion()+" ") {
		t.Errorf("the start-up line does not name the build's version %q:\n%s", buildVersion(), logs)
	}
	res, err := http.Get(r.url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if code := r.stop(); code != 0 {
		t.Errorf("exit code %d: %s", code, r.stderr.String())
	}
}

// TestPortInUseKeepsAdminUncreated: when the port is taken the start
// fails before the admin user is created, so the generated password is
// not printed and lost; the next start creates and prints it.
func TestPortInUseKeepsAdminUncreated(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	t.Setenv("DATA_DIR", dir)
	t.Setenv("HTTP_HOST", "127.0.0.1")
	t.Setenv("PORT", port)
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"server"}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit code %d with the port in use: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "listening on 127.0.0.1:"+port) {
		t.Errorf("error does not name the address: %s", stderr.String())
	}
	if strings.Contains(stdout.String(), "password") {
		t.Errorf("a password was printed although the start failed: %s", stdout.String())
	}

	r := startServerCmd(t, map[string]string{"DATA_DIR": dir, "PORT": "0"})
	m := regexp.MustCompile(`user "admin" with password (\S+)`).FindStringSubmatch(r.stdout.String())
	if m == nil {
		t.Fatalf("the second start printed no password: %s", r.stdout.String())
	}
	login(t, r.url, "admin", m[1], http.StatusOK)
}

// login signs in and checks the status.
func login(t *testing.T, base, user, password string, want int) {
	t.Helper()
	body := `{"username":` + quote(user) + `,"password":` + quote(password) + `}`
	res, err := http.Post(base+"/auth/simple/login", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != want {
		t.Errorf("login %s: status %d, want %d", user, res.StatusCode, want)
	}
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// TestSlowBodyIsCutOff: a client that sends its body a byte now and then
// loses the connection once the read timeout passes, instead of holding
// it for ever.
func TestSlowBodyIsCutOff(t *testing.T) {
	defer func(h, r time.Duration) { readHeaderTimeout, readTimeout = h, r }(readHeaderTimeout, readTimeout)
	readHeaderTimeout, readTimeout = 300*time.Millisecond, 600*time.Millisecond
	r := startServerCmd(t, map[string]string{"DATA_DIR": t.TempDir(), "ADMIN_PASSWORD": "Strong-Pass-123"})
	trickleUntilClosed(t, strings.TrimPrefix(r.url, "http://"), "/auth/simple/login", 20*time.Second)
}

// trickleUntilClosed starts a POST to path on addr whose 1,000-byte body
// comes a byte every 100 ms, and fails unless the server closes the
// connection within limit.
func trickleUntilClosed(t *testing.T, addr, path string, limit time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST "+path+" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, conn)
		closed <- err
	}()
	deadline := time.After(limit)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-closed:
			return // the server closed the connection
		case <-deadline:
			t.Fatalf("the server still holds a connection whose body never ends after %v", limit)
		case <-tick.C:
			_, _ = conn.Write([]byte(" "))
		}
	}
}

// TestRequestIDs: every answer carries a request id, a sane one sent by
// the client is kept, and the access log shows it.
func TestRequestIDs(t *testing.T) {
	r := startServerCmd(t, map[string]string{"DATA_DIR": t.TempDir(), "ADMIN_PASSWORD": "Strong-Pass-123", "LOG_LEVEL": "debug"})
	get := func(id string) string {
		req, _ := http.NewRequest("GET", r.url+"/health", nil)
		if id != "" {
			req.Header.Set("X-Request-Id", id)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.Header.Get("X-Request-Id")
	}
	a, b := get(""), get("")
	if a == "" || a == b {
		t.Errorf("generated ids %q and %q", a, b)
	}
	if got := get("lb-7f3a.9"); got != "lb-7f3a.9" {
		t.Errorf("sane id replaced by %q", got)
	}
	if got := get("bad id\twith spaces"); got == "" || strings.Contains(got, " ") {
		t.Errorf("insane id answered as %q", got)
	}
	r.stop()
	sc := bufio.NewScanner(strings.NewReader(r.stderr.String()))
	found := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), `msg="http request"`) && strings.Contains(sc.Text(), "request_id=lb-7f3a.9") {
			found = true
		}
	}
	if !found {
		t.Errorf("the access log does not show the request id:\n%s", r.stderr.String())
	}
}

// TestBackupCommand backs up the database of a running server and checks
// that the copy, restored alone into a new data directory, holds the data.
func TestBackupCommand(t *testing.T) {
	dir := t.TempDir()
	r := startServerCmd(t, map[string]string{"DATA_DIR": dir, "ADMIN_PASSWORD": "Strong-Pass-123", "INIT_ADMIN_API_TOKENS": "*:*." + longSecret})
	req, _ := http.NewRequest("POST", r.url+"/api/admin/projects/default/features", strings.NewReader(`{"name":"kept-in-backup"}`))
	req.Header.Set("Authorization", "*:*."+longSecret)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("creating a flag: %d", res.StatusCode)
	}

	out := filepath.Join(t.TempDir(), "backup.db")
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"backup", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("backup exited %d: %s", code, stderr.String())
	}
	// It holds password hashes and other secrets: for this user only.
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the backup's mode: %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if code := run(t.Context(), []string{"backup", "-out", out}, &stdout, &stderr); code != 1 {
		t.Errorf("a backup over an existing file exited %d", code)
	}
	r.stop()

	st, err := sqlstore.Open(t.Context(), out)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := sqlstoreFeature(t, st, "kept-in-backup"); err != nil {
		t.Errorf("the backup lacks the flag: %v", err)
	}

	t.Setenv("DATABASE_URL", "postgres://u:secret@127.0.0.1:1/flags")
	stderr.Reset()
	if code := run(t.Context(), []string{"backup", "-out", filepath.Join(t.TempDir(), "pg.db")}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "pg_dump") {
		t.Errorf("PostgreSQL backup exited %d: %s", code, stderr.String())
	}
	if code := run(t.Context(), []string{"backup"}, &stdout, &stderr); code != 2 {
		t.Errorf("backup without -out exited %d", code)
	}
}

// TestResetPasswordCommand gives the admin a new password in the database
// a server uses, generated or read from standard input.
func TestResetPasswordCommand(t *testing.T) {
	dir := t.TempDir()
	r := startServerCmd(t, map[string]string{"DATA_DIR": dir, "ADMIN_PASSWORD": "Strong-Pass-123"})

	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"admin", "reset-password", "admin"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	m := regexp.MustCompile(`New password of admin: (\S+)`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no password printed: %s", stdout.String())
	}
	login(t, r.url, "admin", "Strong-Pass-123", http.StatusUnauthorized)
	login(t, r.url, "admin", m[1], http.StatusOK)

	defer func(old io.Reader) { stdin = old }(stdin)
	stdin = strings.NewReader("Chosen-Pass-456\n")
	stdout.Reset()
	if code := run(t.Context(), []string{"admin", "reset-password", "admin", "-password-stdin"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "Chosen-Pass-456") {
		t.Errorf("the given password was echoed: %s", stdout.String())
	}
	login(t, r.url, "admin", "Chosen-Pass-456", http.StatusOK)

	stderr.Reset()
	if code := run(t.Context(), []string{"admin", "reset-password", "nobody"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "nobody") {
		t.Errorf("unknown user: exit %d: %s", code, stderr.String())
	}
	t.Setenv("DATA_DIR", t.TempDir())
	stderr.Reset()
	if code := run(t.Context(), []string{"admin", "reset-password", "admin"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "no database") {
		t.Errorf("empty data dir: exit %d: %s", code, stderr.String())
	}
}

func sqlstoreFeature(t *testing.T, st *sqlstore.Store, name string) (store.Feature, error) {
	t.Helper()
	var f store.Feature
	err := st.View(t.Context(), func(r store.Reader) error {
		var err error
		f, err = r.GetFeature(t.Context(), name)
		return err
	})
	return f, err
}

func TestListenURL(t *testing.T) {
	for addr, want := range map[string]string{
		"[::]:4242":      "http://localhost:4242",
		"0.0.0.0:4242":   "http://localhost:4242",
		"127.0.0.1:80":   "http://127.0.0.1:80",
		"[::1]:4242":     "http://[::1]:4242",
		"10.1.2.3:31337": "http://10.1.2.3:31337",
	} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := listenURL(tcp); got != want {
			t.Errorf("listenURL(%s) = %s, want %s", addr, got, want)
		}
	}
}
