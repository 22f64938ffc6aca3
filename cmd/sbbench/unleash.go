package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/internal/pgtest"
)

// The reference server: unleash-server from test/unleash on a throwaway
// PostgreSQL, seeded with the same generated payload through its admin API,
// measured with the same load generator as ours.
const (
	unleashAdminToken  = "*:*.sbbench-unleash-admin"
	unleashClientToken = "default:development.sbbench-unleash-client"
	unleashImportFlags = 200 // Unleash bounds an import body to 500 kB
)

// unleashDir is test/unleash when node and unleash-server are installed.
func unleashDir() string {
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	if _, err := os.Stat("test/unleash/node_modules/unleash-server/package.json"); err != nil {
		return ""
	}
	dir, _ := filepath.Abs("test/unleash")
	return dir
}

// unleashServer is the reference server, seeded, with its rows of the
// client API (200, gzip, 304) as companions of ours.
type unleashServer struct {
	proc *child
	rows [3]*companion
	// gzipBytes is the size of its gzip answer.
	gzipBytes int
}

// startUnleash starts the reference server on the servers' CPU with n
// flags, on a new database of the bench's PostgreSQL.
func (b *bench) startUnleash(n int) (*unleashServer, error) {
	if b.pg == nil {
		pg, err := pgtest.StartCluster()
		if err != nil {
			return nil, fmt.Errorf("PostgreSQL for unleash-server: %w", err)
		}
		b.pg = pg
	}
	dbURL, err := b.pg.NewDatabase(fmt.Sprintf("sbbench_unleash_%d_%d", os.Getpid(), n))
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(addr)
	srv, err := startChild("unleash-server", pausable(pinned(serverCPU, "node", filepath.Join(b.unleashDir, "start.mjs"))), []string{
		"DATABASE_HOST=" + u.Query().Get("host"), "DATABASE_USERNAME=" + u.User.Username(),
		"DATABASE_NAME=" + strings.TrimPrefix(u.Path, "/"), "DATABASE_SSL=false",
		"HTTP_HOST=127.0.0.1", "HTTP_PORT=" + port, "INIT_ADMIN_API_TOKENS=" + unleashAdminToken,
		"INIT_CLIENT_API_TOKENS=" + unleashClientToken, "LOG_LEVEL=error", "CHECK_VERSION=false", "SEND_TELEMETRY=false",
		// Its SDK API answers 429 beyond 20,000 requests a minute by
		// default: the benchmark measures the server, not that limit.
		"SDK_API_RATE_LIMIT_PER_MINUTE=100000000", "TOKEN_AUTHENTICATION_RATE_LIMIT_PER_MINUTE=100000000",
	})
	if err != nil {
		return nil, err
	}
	us, err := b.readyUnleash(srv, "http://"+addr, n)
	if err != nil {
		srv.stop()
		return nil, err
	}
	return us, nil
}

// readyUnleash waits for the reference server at base, seeds it with n
// flags, checks that it serves them, and sets up its rows.
func (b *bench) readyUnleash(srv *child, base string, n int) (*unleashServer, error) {
	admin := http.Header{"Authorization": {unleashAdminToken}}
	if err := srv.waitHTTPFor(base+"/api/admin/environments", admin, 3*time.Minute); err != nil {
		return nil, err
	}
	if err := seedUnleash(base, b.payload(n)); err != nil {
		return nil, fmt.Errorf("seeding unleash-server: %w", err)
	}
	h := http.Header{"Authorization": {unleashClientToken}, "Accept-Encoding": {"identity"}}
	body, err := fetch(base+"/api/client/features", h)
	if err != nil {
		return nil, err
	}
	var got clientapi.Features
	if err := json.Unmarshal(body, &got); err != nil || len(got.Features) != n {
		return nil, fmt.Errorf("unleash-server serves %d flags, not %d (%v)", len(got.Features), n, err)
	}
	etag, err := fetchETag(base+"/api/client/features", h)
	if err != nil {
		return nil, err
	}
	gz := http.Header{"Authorization": {unleashClientToken}, "Accept-Encoding": {"gzip"}}
	gzipped, err := fetch(base+"/api/client/features", gz)
	if err != nil {
		return nil, err
	}
	cond := http.Header{"Authorization": {unleashClientToken}, "If-None-Match": {etag}}
	us := &unleashServer{proc: srv, gzipBytes: len(gzipped)}
	for i, m := range []struct {
		what string
		h    http.Header
	}{
		{"GET /api/client/features (200)", h},
		{"GET /api/client/features (200, gzip)", gz},
		{"GET /api/client/features (304)", cond},
	} {
		us.rows[i] = &companion{target: "unleash-server", what: m.what, flags: n, label: "Unleash", ref: true,
			cfg: b.config(srv.pid(), "GET", base+"/api/client/features", nil, m.h), paused: srv}
	}
	// Seeded and idle, it still runs its scheduled jobs: none of them may
	// run in our windows.
	srv.pause()
	return us, nil
}

// row is the companion for row i (200, gzip, 304), nil without the
// reference server.
func (u *unleashServer) row(i int) *companion {
	if u == nil {
		return nil
	}
	return u.rows[i]
}

// finish stops the reference server and adds its rows.
func (u *unleashServer) finish(b *bench) {
	if u == nil {
		return
	}
	u.proc.stop()
	for i, c := range u.rows {
		r := c.row()
		if i == 1 {
			r.note = fmt.Sprintf("gzip answer %d bytes", u.gzipBytes)
		}
		b.rows = append(b.rows, r)
	}
}

// seedUnleash writes payload's flags into Unleash's default project in
// development: the custom strategy and context fields it uses, its
// segments, then the flags by the import API in batches.
func seedUnleash(base string, payload *clientapi.Features) error {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 2 * time.Minute}
	auth := unleashAdminToken
	call := func(method, path string, body any) ([]byte, error) {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(data))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		if res.StatusCode/100 != 2 {
			return nil, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, out)
		}
		return out, nil
	}
	type obj = map[string]any
	// Unleash 8 no longer ships userWithId; instances using it define it.
	if _, err := call("POST", "/api/admin/strategies", obj{"name": "userWithId", "description": "older built-in",
		"parameters": []obj{{"name": "userIds", "type": "list", "description": "user ids", "required": false}}}); err != nil {
		return err
	}
	// remoteAddress (used by the realistic mix) may be gone as well: define
	// it, and take a refusal as the server still having it.
	_, _ = call("POST", "/api/admin/strategies", obj{"name": "remoteAddress", "description": "older built-in",
		"parameters": []obj{{"name": "IPs", "type": "list", "description": "addresses", "required": false}}})
	for _, name := range []string{"email", "age", "plan", "country", "appVersion"} {
		if _, err := call("POST", "/api/admin/context", obj{"name": name}); err != nil {
			return err
		}
	}
	for _, s := range payload.Segments {
		if _, err := call("POST", "/api/admin/segments", obj{"name": s.Name, "constraints": s.Constraints}); err != nil {
			return err
		}
	}
	// The import API refuses admin tokens: it takes a personal access
	// token, made here for the admin user Unleash creates on first start.
	auth = ""
	if _, err := call("POST", "/auth/simple/login", obj{"username": "admin", "password": "unleash4all"}); err != nil {
		return err
	}
	out, err := call("POST", "/api/admin/user/tokens", obj{"description": "sbbench", "expiresAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)})
	if err != nil {
		return err
	}
	var pat struct {
		Secret string `json:"secret"`
	}
	if err := json.Unmarshal(out, &pat); err != nil || pat.Secret == "" {
		return fmt.Errorf("no personal access token in %s", out)
	}
	auth = pat.Secret
	segments := make([]obj, len(payload.Segments))
	for i, s := range payload.Segments {
		segments[i] = obj{"id": s.ID, "name": s.Name}
	}
	for start := 0; start < len(payload.Features); start += unleashImportFlags {
		batch := payload.Features[start:min(start+unleashImportFlags, len(payload.Features))]
		var features, strategies, envs, deps []obj
		for _, f := range batch {
			features = append(features, obj{"name": f.Name, "type": f.Type, "project": "default", "impressionData": f.ImpressionData})
			for i, s := range f.Strategies {
				strategies = append(strategies, obj{"name": s.Name, "featureName": f.Name, "sortOrder": i,
					"constraints": nonNil(s.Constraints), "parameters": s.Parameters, "segments": nonNil(s.Segments), "variants": nonNil(s.Variants)})
			}
			envs = append(envs, obj{"name": f.Name, "featureName": f.Name, "environment": "development", "enabled": f.Enabled, "variants": nonNil(f.Variants)})
			if len(f.Dependencies) > 0 {
				var parents []obj
				for _, d := range f.Dependencies {
					parents = append(parents, obj{"feature": d.Feature, "enabled": d.WantsEnabled()})
				}
				deps = append(deps, obj{"feature": f.Name, "dependencies": parents})
			}
		}
		data := obj{"features": features, "featureStrategies": strategies, "featureEnvironments": envs,
			"segments": segments, "featureTags": []obj{}, "tagTypes": []obj{}, "contextFields": []obj{}}
		if len(deps) > 0 {
			data["dependencies"] = deps
		}
		if _, err := call("POST", "/api/admin/features-batch/import", obj{"project": "default", "environment": "development", "data": data}); err != nil {
			return err
		}
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
