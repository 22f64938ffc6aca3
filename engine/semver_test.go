package engine

import (
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

func TestParseSemver(t *testing.T) {
	valid := []string{"0.0.0", "1.2.3", "10.20.30", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7",
		"1.0.0-x.7.z.92", "1.0.0+20130313144700", "1.0.0-beta+exp.sha.5114f85", "1.0.0-x-y-z.--",
		"1.0.0+" + strings.Repeat("0", 250)}
	invalid := []string{"", "1", "1.2", "1.2.3.4", "v1.2.3", "01.2.3", "1.02.3", "1.2.03", "1.2.3-",
		"1.2.3+", "1.2.3-01", "1.2.3-a..b", "1.2.3-a_b", " 1.2.3", "1.2.3 ", "not a semver",
		"99999999999999999999.0.0", "-1.2.3", "1.2.-3", "1.0.0+" + strings.Repeat("0", 251)}
	for _, s := range valid {
		if _, ok := parseSemver(s); !ok {
			t.Errorf("parseSemver(%q) rejected a valid version", s)
		}
	}
	for _, s := range invalid {
		if _, ok := parseSemver(s); ok {
			t.Errorf("parseSemver(%q) accepted an invalid version", s)
		}
	}
}

func TestSemverPrecedence(t *testing.T) {
	// Each version ranks strictly below the next (SemVer 2.0.0 §11 example
	// plus the pairs the client specification checks).
	order := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
		"1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.9.1-beta.1", "2.0.0-alpha.1",
		"2.0.0-alpha.3", "2.0.0-beta.1", "2.0.0-rc", "2.0.0", "2.0.1", "2.1.0", "10.0.0"}
	for i := 0; i+1 < len(order); i++ {
		a, _ := parseSemver(order[i])
		b, _ := parseSemver(order[i+1])
		if a.compare(b) != -1 || b.compare(a) != 1 {
			t.Errorf("%s should rank below %s", order[i], order[i+1])
		}
	}
	a, _ := parseSemver("1.0.0+build.1")
	b, _ := parseSemver("1.0.0+build.2")
	if a.compare(b) != 0 {
		t.Error("build metadata must not affect precedence")
	}
}

// FuzzSemverAgainstLibrary compares our allocation-free parser with
// Masterminds/semver's strict parser, an independent implementation of
// SemVer 2.0.0, on every pair of inputs both accept.
func FuzzSemverAgainstLibrary(f *testing.F) {
	f.Add("1.0.0-alpha.1", "1.0.0-alpha.beta")
	f.Add("2.0.0-rc", "2.0.0")
	f.Add("1.0.0-1", "1.0.0-a")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, okA := parseSemver(x)
		b, okB := parseSemver(y)
		la, errA := semver.StrictNewVersion(x)
		lb, errB := semver.StrictNewVersion(y)
		if okA && errA != nil {
			t.Fatalf("we accept %q, the library rejects it: %v", x, errA)
		}
		if !okA || !okB || errA != nil || errB != nil {
			return
		}
		if got, want := a.compare(b), la.Compare(lb); got != want {
			t.Fatalf("compare(%q, %q) = %d, library says %d", x, y, got, want)
		}
	})
}
