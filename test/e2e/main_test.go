// Package e2e runs the signalbox binary as users do — server and proxy as
// real processes on loopback — and drives them with real Unleash clients
// nobody here wrote (npm: unleash-client, unleash-proxy-client,
// @unleash/proxy), installed in test/compat.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// binary is the signalbox binary built for this test run.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "signalbox-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "signalbox")
	build := exec.Command("go", "build", "-o", binary, "../../cmd/signalbox")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building signalbox:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// requireNode returns the compat directory with the npm clients installed,
// skipping the test when they are missing, except under CI where that is a
// failure.
func requireNode(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs("../compat")
	_, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(dir, "node_modules", "unleash-client"))
	if nodeErr != nil || modErr != nil {
		msg := "node or the npm clients are missing: run (cd test/compat && npm ci --ignore-scripts)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}
