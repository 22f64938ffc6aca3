package main

import (
	"context"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// TestProxyListeningLine: the proxy binds the address HTTP_HOST names and
// says so in one structured log line with its URL, whatever LOG_LEVEL is.
func TestProxyListeningLine(t *testing.T) {
	port := startProxyCmd(t)
	// Bound to loopback only: the port is taken there.
	if ln, err := net.Listen("tcp", "127.0.0.1:"+port); err == nil {
		ln.Close()
		t.Error("the proxy does not hold its port on 127.0.0.1")
	}
}

// startProxyCmd runs "signalbox proxy" on a free loopback port until the
// test ends, and returns the port once it logged its listening line (with
// the address and URL it names).
func startProxyCmd(t *testing.T) string {
	t.Helper()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(free.Addr().(*net.TCPAddr).Port)
	free.Close()
	for k, v := range map[string]string{
		"PORT": port, "HTTP_HOST": "127.0.0.1", "LOG_LEVEL": "error", "JSON_LOGGER": "false",
		"SERVICE_URL": "http://127.0.0.1:1/api", "SERVICE_API_TOKEN": "default:development.x", "SERVICE_PROXY_CLIENT_KEYS": "k",
		"PROXY_BASE_PATH": "edge", "SIGNALBOX_PROXY_BACKUP_DIR": t.TempDir(),
	} {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"proxy"}, stdout, stderr) }()
	t.Cleanup(func() { cancel(); <-done })

	want := regexp.MustCompile(`level=INFO msg="signalbox proxy listening" version=\S+ addr=127\.0\.0\.1:` + port +
		` url=http://127\.0\.0\.1:` + port + `/edge/proxy upstream=http://127\.0\.0\.1:1/api`)
	deadline := time.Now().Add(30 * time.Second)
	for !want.MatchString(stderr.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no listening line in:\n%s", stderr.String())
		}
		select {
		case code := <-done:
			done <- code
			t.Fatalf("proxy exited %d:\n%s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return port
}

// TestNodeSlowBodyIsCutOff: a proxy or Edge node reads a whole request
// within the headers' time (the server allows its bodies longer).
func TestNodeSlowBodyIsCutOff(t *testing.T) {
	defer func(h, r time.Duration) { readHeaderTimeout, readTimeout = h, r }(readHeaderTimeout, readTimeout)
	readHeaderTimeout, readTimeout = 300*time.Millisecond, time.Minute
	port := startProxyCmd(t)
	trickleUntilClosed(t, "127.0.0.1:"+port, "/edge/proxy", 10*time.Second)
}
