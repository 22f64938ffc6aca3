// Package packaging tests how Signalbox is installed: the versioned build,
// the release archives, the container image (run chrooted, as containers
// cannot run everywhere the tests do), the Helm chart rendered by helm and
// decoded into Kubernetes API types, the Compose file and the systemd units.
//
// With CI set, a test whose tool is missing (podman, helm's build, zip,
// systemd-analyze excepted) fails instead of skipping.
package packaging

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// root is the repository's top folder.
var root = func() string {
	dir, err := filepath.Abs("../..")
	if err != nil {
		panic(err)
	}
	return dir
}()

// need skips a test whose tool is missing, or fails it under CI.
func need(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is needed: %v", what, err)
	}
	t.Skipf("%s is missing (this fails under CI): %v", what, err)
}

// run runs name args in dir with extra environment and returns its
// standard output; it fails the test on a non-zero exit.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, errOut, err := try(dir, env, 10*time.Minute, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\n%s", name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// try runs a command and returns its output and error.
func try(dir string, env []string, timeout time.Duration, name string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// gitVersion is what make stamps: git describe and the short commit.
func gitVersion(t *testing.T) (version, commit string) {
	t.Helper()
	version = strings.TrimSpace(run(t, root, nil, "git", "describe", "--tags", "--always", "--dirty"))
	commit = strings.TrimSpace(run(t, root, nil, "git", "rev-parse", "--short", "HEAD"))
	return version, commit
}

var versionLine = regexp.MustCompile(`^signalbox (\S+) \(commit (\S+), built (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ), go (go1\.\S+)\)\n$`)

var (
	buildOnce sync.Once
	buildErr  error
	buildOut  []string
)

// makeBuild runs "make build" once and returns the parts of the
// version line of ./signalbox: version, commit, date, Go version.
func makeBuild(t *testing.T) []string {
	t.Helper()
	_, err := exec.LookPath("make")
	need(t, "make", err)
	buildOnce.Do(func() {
		// The machine's GOFLAGS (such as -buildvcs=false) must not matter.
		out, errOut, err := try(root, []string{"GOFLAGS=-buildvcs=false"}, 10*time.Minute, "make", "build")
		if err != nil {
			buildErr = fmt.Errorf("make build: %v\n%s%s", err, out, errOut)
			return
		}
		v, errOut, err := try(root, nil, time.Minute, "./signalbox", "version")
		if err != nil {
			buildErr = fmt.Errorf("./signalbox version: %v\n%s", err, errOut)
			return
		}
		m := versionLine.FindStringSubmatch(v)
		if m == nil {
			buildErr = fmt.Errorf("./signalbox version printed %q", v)
			return
		}
		buildOut = m[1:]
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildOut
}

// TestMakeBuild: make build writes a static ./signalbox whose version line
// names git describe's version, the commit, a UTC date and the Go version.
func TestMakeBuild(t *testing.T) {
	got := makeBuild(t)
	version, commit := gitVersion(t)
	if got[0] != version || got[1] != commit {
		t.Errorf("version %q commit %q, want %q and %q", got[0], got[1], version, commit)
	}
	built, err := time.Parse(time.RFC3339, got[2])
	if err != nil || time.Since(built) > time.Hour || time.Until(built) > time.Minute {
		t.Errorf("built %q: not the time of this build (%v)", got[2], err)
	}
	goVersion := strings.TrimSpace(run(t, root, nil, "go", "env", "GOVERSION"))
	if got[3] != goVersion {
		t.Errorf("go %q, want %q", got[3], goVersion)
	}
	assertStatic(t, filepath.Join(root, "signalbox"))
}
