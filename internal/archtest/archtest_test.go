// Package archtest guards the direction of dependencies between packages.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/signalbox/signalbox"

// deps lists every package that pkg imports, directly or not.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-test=false", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	return strings.Fields(string(out))
}

func TestDependencyDirection(t *testing.T) {
	tests := []struct {
		pkg string
		// ours lists the only packages of this module pkg may import.
		ours []string
		// forbidden lists packages pkg must not import at all.
		forbidden []string
	}{
		{
			pkg:       module + "/engine",
			ours:      []string{module + "/clientapi"},
			forbidden: []string{"net/http", "database/sql", "os/exec", "github.com/dop251/goja"},
		},
		{
			pkg:       module + "/clientapi",
			ours:      nil,
			forbidden: []string{"net/http", "database/sql"},
		},
		{
			// The answer writer is shared by the proxy and the server's
			// frontend API; it sits below both.
			pkg:       module + "/answer",
			ours:      []string{module + "/engine", module + "/clientapi"},
			forbidden: []string{"database/sql"},
		},
		{
			// The UI is static files; its pages reach the server only
			// through the admin API.
			pkg:  module + "/web",
			ours: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			allowed := map[string]bool{tt.pkg: true}
			for _, p := range tt.ours {
				allowed[p] = true
			}
			for _, d := range deps(t, tt.pkg) {
				if strings.HasPrefix(d, module+"/") || d == module {
					if !allowed[d] {
						t.Errorf("%s imports %s; it may import only %v of this module", tt.pkg, d, tt.ours)
					}
				}
				for _, f := range tt.forbidden {
					// Exact match: database/sql/driver (interfaces only, pulled
					// in by the semver library) is fine; the SQL package is not.
					if d == f {
						t.Errorf("%s imports %s, which it must not", tt.pkg, d)
					}
				}
			}
		})
	}
}

// TestProxyStandsAlone keeps the proxy deployable without the server: it must
// not import the server, the store or a database driver. (database/sql
// itself comes in through the Prometheus collectors and is harmless.)
func TestProxyStandsAlone(t *testing.T) {
	for _, d := range deps(t, module+"/proxy") {
		for _, f := range []string{module + "/server", module + "/store", "github.com/jackc/pgx", "modernc.org/sqlite"} {
			if d == f || strings.HasPrefix(d, f+"/") {
				t.Errorf("proxy imports %s", d)
			}
		}
	}
}

// TestMigrateWritesThroughTheStore keeps the Unleash migration beside the
// server rather than on top of it: it writes through the store and reads
// through HTTP, so it must not import the server.
func TestMigrateWritesThroughTheStore(t *testing.T) {
	for _, d := range deps(t, module+"/migrate") {
		if d == module+"/server" || strings.HasPrefix(d, module+"/server/") {
			t.Errorf("migrate imports %s", d)
		}
	}
}

// TestNoImports lists imports that would bend the arrows of the layout:
// the server and the proxy are siblings sharing package answer; only cmd/
// picks a database for the server; the store knows nothing of HTTP or of
// the server above it.
func TestNoImports(t *testing.T) {
	tests := []struct {
		pkg       string
		forbidden []string
	}{
		{module + "/server", []string{module + "/proxy", module + "/store/sqlstore", module + "/migrate"}},
		{module + "/proxy", []string{module + "/server", module + "/migrate"}},
		{module + "/store", []string{module + "/server", module + "/proxy", "net/http"}},
		// (sqlstore reaches net/http only through its drivers.)
		{module + "/store/sqlstore", []string{module + "/server", module + "/proxy"}},
		{module + "/web", []string{module + "/server", module + "/store"}},
	}
	for _, tt := range tests {
		t.Run(tt.pkg, func(t *testing.T) {
			for _, d := range deps(t, tt.pkg) {
				for _, f := range tt.forbidden {
					if d == f || strings.HasPrefix(d, f+"/") {
						t.Errorf("%s imports %s, which it must not", tt.pkg, d)
					}
				}
			}
		})
	}
}
