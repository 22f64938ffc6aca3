//go:build unix

package proxy

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultEdgeBackupDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/srv/state")
	if got := DefaultEdgeBackupDir(); got != filepath.Join("/srv/state", "signalbox") {
		t.Errorf("with XDG_STATE_HOME: %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "relative") // not absolute: ignored, as the XDG specification says
	t.Setenv("HOME", "/home/node")
	if got := DefaultEdgeBackupDir(); got != filepath.Join("/home/node", ".local", "state", "signalbox") {
		t.Errorf("with HOME only: %q", got)
	}
	if got := (EdgeConfig{UpstreamURL: "http://127.0.0.1:9"}).withDefaults().BackupDir; got != DefaultEdgeBackupDir() {
		t.Errorf("an unset BackupDir defaults to %q", got)
	}
}

// startEdgeOn runs a node of upstream up keeping its backups in dir; its
// logs go to logs.
func startEdgeOn(t *testing.T, up *validatingUpstream, dir string, logs io.Writer) (*Edge, *httptest.Server) {
	t.Helper()
	e, err := NewEdge(EdgeConfig{UpstreamURL: up.srv.URL, BackupDir: dir, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.Run(ctx) }()
	srv := httptest.NewServer(e.Handler())
	t.Cleanup(func() { srv.Close(); cancel(); <-done })
	return e, srv
}

func edgeGet(t *testing.T, srv *httptest.Server, token string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", srv.URL+"/api/client/features", nil)
	req.Header.Set("Authorization", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// A missing backup folder is created for the node's user only, the token
// backup is written 0600 without going through any name another user could
// have planted, and a restarted node reads it back.
func TestEdgeTokenBackupIsPrivate(t *testing.T) {
	up := newValidatingUpstream(t)
	dir := filepath.Join(t.TempDir(), "state", "signalbox")
	e, srv := startEdgeOn(t, up, dir, io.Discard)
	file := e.tokensFile()
	const first, token = "*:development.good-first", "*:development.good-backed-up"
	if got := edgeGet(t, srv, first); got != http.StatusOK {
		t.Fatalf("a valid token: %d", got)
	}
	planted := file + ".tmp"
	if err := os.WriteFile(planted, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if got := edgeGet(t, srv, token); got != http.StatusOK {
		t.Fatalf("a valid token: %d", got)
	}
	for name, want := range map[string]fs.FileMode{dir: 0o700, file: 0o600} {
		fi, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
	if b, _ := os.ReadFile(planted); len(b) != 0 {
		t.Errorf("the token backup went through a planted file: %q", b)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), first) || !strings.Contains(string(b), token) {
		t.Errorf("the backup lacks the token: %s", b)
	}

	again, err := NewEdge(EdgeConfig{UpstreamURL: up.srv.URL, BackupDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := (*again.view.Load())[token]; !ok {
		t.Error("a restarted node does not serve the backed-up token")
	}
}

// A token backup another user could have written is not read, and the log
// says why.
func TestEdgeRefusesForeignTokenBackups(t *testing.T) {
	up := newValidatingUpstream(t)
	const token = "*:development.good-planted"
	plant := func(t *testing.T, dirMode, fileMode fs.FileMode, chown bool) (string, *syncBuffer) {
		dir := filepath.Join(t.TempDir(), "b")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		e, err := NewEdge(EdgeConfig{UpstreamURL: up.srv.URL, BackupDir: dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		file := e.tokensFile()
		body := `[{"token":"` + token + `","type":"client","projects":["*"],"environment":"development"}]`
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if chown {
			if err := os.Chown(file, 65534, 65534); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("cannot give a file away, and CI (root) must: %v", err)
				}
				t.Skipf("cannot give a file away here (this fails under CI): %v", err)
			}
		}
		if err := os.Chmod(file, fileMode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, dirMode); err != nil {
			t.Fatal(err)
		}
		return dir, &syncBuffer{}
	}
	for _, tt := range []struct {
		name              string
		dirMode, fileMode fs.FileMode
		chown, refused    bool
	}{
		{"own private file", 0o700, 0o600, false, false},
		{"group-writable file", 0o700, 0o660, false, true},
		{"world-writable file", 0o700, 0o606, false, true},
		{"world-writable folder", 0o777 | fs.ModeSticky, 0o600, false, true},
		{"another user's file", 0o700, 0o600, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir, logs := plant(t, tt.dirMode, tt.fileMode, tt.chown)
			e, err := NewEdge(EdgeConfig{UpstreamURL: up.srv.URL, BackupDir: dir, Logger: slog.New(slog.NewTextHandler(logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			_, served := (*e.view.Load())[token]
			if served == tt.refused {
				t.Errorf("served the backed-up token: %v, want %v", served, !tt.refused)
			}
			if logged := strings.Contains(logs.String(), "refusing a token backup another user could have written"); logged != tt.refused {
				t.Errorf("logged a refusal: %v, want %v; logs:\n%s", logged, tt.refused, logs)
			}
		})
	}
}
