package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/signalbox/signalbox/internal/load"
)

func TestRun(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(r.Method + " " + r.Header.Get("Authorization") + " " + r.Header.Get("Content-Type") + " " + string(b))
		_, _ = io.WriteString(w, `{"toggles":[]}`)
	}))
	defer srv.Close()
	bodyFile := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(bodyFile, []byte(`{"context":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		args     []string
		code     int
		json     bool
		request  string // what the server saw last
		stdout   string
		stderr   string
		requests int64
	}{
		{name: "text", args: []string{"-url", srv.URL, "-n", "200", "-c", "4"}, stdout: "200 answered, 0 errors",
			request: "GET   "},
		{name: "json with file body", json: true, requests: 300,
			args:    []string{"-url", srv.URL + "/proxy", "-n", "300", "-c", "8", "-body", "@" + bodyFile, "-H", "Authorization: key", "-H", "Content-Type: application/json"},
			request: `POST key application/json {"context":{}}`},
		{name: "inline body and method", args: []string{"-url", srv.URL, "-n", "10", "-method", "PUT", "-body", "x"},
			request: "PUT   x", stdout: "PUT"},
		{name: "duration", args: []string{"-url", srv.URL, "-d", "100ms"}, stdout: "answered"},
		{name: "not loopback", args: []string{"-url", "http://192.0.2.1/proxy", "-n", "1"}, code: 1, stderr: "not a loopback address"},
		{name: "no url", args: []string{"-n", "1"}, code: 2, stderr: "-url is required"},
		{name: "too many", args: []string{"-url", srv.URL, "-n", "10000001"}, code: 1, stderr: "request count"},
		{name: "too long", args: []string{"-url", srv.URL, "-d", "11m"}, code: 1, stderr: "duration"},
		{name: "bad header", args: []string{"-url", srv.URL, "-n", "1", "-H", "novalue"}, code: 2, stderr: "Name: value"},
		{name: "missing body file", args: []string{"-url", srv.URL, "-n", "1", "-body", "@/nonexistent/x"}, code: 2, stderr: "-body"},
		{name: "stray argument", args: []string{"-url", srv.URL, "-n", "1", "extra"}, code: 2, stderr: "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.json {
				tt.args = append(tt.args, "-json")
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.stdout) || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q and %q", stdout.String(), stderr.String(), tt.stdout, tt.stderr)
			}
			if tt.request != "" && got.Load() != tt.request {
				t.Errorf("server saw %q, want %q", got.Load(), tt.request)
			}
			if tt.json {
				var res load.Result
				if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
					t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
				}
				if res.Requests != tt.requests || res.Status[200] != tt.requests || res.Latency.P99 <= 0 {
					t.Errorf("result %+v, want %d answered requests", res, tt.requests)
				}
			}
		})
	}
}
