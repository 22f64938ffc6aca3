package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestParseEdge(t *testing.T) {
	env := map[string]string{
		"UPSTREAM_URL": "http://upstream:4242/api", "PORT": "4000", "TOKENS": "a:development.x, b:production.y",
		"FEATURES_REFRESH_INTERVAL_SECONDS": "5", "OFFLINE": "false",
	}
	var stderr bytes.Buffer
	s, err := parseEdge([]string{"--port", "4100", "--offline", "--bootstrap-file", "f.json"}, func(k string) string { return env[k] }, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if s.port != 4100 || s.cfg.UpstreamURL != "http://upstream:4242/api" || len(s.cfg.Tokens) != 2 ||
		s.cfg.RefreshInterval != 5*time.Second || !s.cfg.Offline || s.cfg.BootstrapFile != "f.json" {
		t.Errorf("settings %+v", s)
	}

	for _, tt := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"bad port", map[string]string{"PORT": "x"}, nil, "PORT"},
		{"bad interval", nil, []string{"--metrics-interval-seconds", "0"}, "metrics-interval-seconds"},
		{"extra argument", nil, []string{"serve"}, "unexpected arguments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseEdge(tt.args, func(k string) string { return tt.env[k] }, &stderr)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}

	// -h lists every option with its variable.
	stderr.Reset()
	_, _ = parseEdge([]string{"-h"}, func(string) string { return "" }, &stderr)
	for _, o := range edgeOptions(&edgeSettings{}) {
		if !strings.Contains(stderr.String(), "--"+o.flag) || !strings.Contains(stderr.String(), o.env) {
			t.Errorf("-h does not list --%s / %s", o.flag, o.env)
		}
	}
}
