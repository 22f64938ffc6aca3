// Package buildinfo names the running build: its version, commit, build
// date and Go version. Release builds stamp them with the linker
//
//	go build -ldflags "-X github.com/signalbox/signalbox/internal/buildinfo.version=v1.2.3
//	  -X github.com/signalbox/signalbox/internal/buildinfo.commit=abc1234
//	  -X github.com/signalbox/signalbox/internal/buildinfo.date=2026-01-02T03:04:05Z"
//
// (make build does); a plain go build or go run reads what Go recorded in
// the binary instead: the module version and the VCS settings when present,
// else "devel".
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set by the linker (-X); empty in plain builds.
var (
	version string
	commit  string
	date    string
)

// Info describes a build.
type Info struct {
	// Version is the release ("v1.2.3", a git describe), the module
	// version for go install …@version, or "devel".
	Version string
	// Commit is the short VCS revision, or "unknown".
	Commit string
	// Date is when the build was made (or its commit, for plain builds),
	// in UTC, or "unknown".
	Date string
	// GoVersion is the toolchain that built the binary.
	GoVersion string
}

// Get returns the running binary's build information.
func Get() Info {
	info, _ := debug.ReadBuildInfo()
	return from(version, commit, date, info)
}

// Version is Get().Version.
func Version() string { return Get().Version }

// String is the one line "signalbox version" prints:
// "signalbox v1.2.3 (commit abc1234, built 2026-01-02T03:04:05Z, go go1.26.0)".
func (i Info) String() string {
	return fmt.Sprintf("signalbox %s (commit %s, built %s, go %s)", i.Version, i.Commit, i.Date, i.GoVersion)
}

// UserAgent is the product token Signalbox's HTTP clients send, such as
// "signalbox-proxy/v1.2.3" for component "proxy".
func UserAgent(component string) string {
	return "signalbox-" + component + "/" + Version()
}

// from combines the stamped values with what Go recorded (info may be nil).
func from(version, commit, date string, info *debug.BuildInfo) Info {
	out := Info{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version()}
	var rev, vcsTime, modified string
	if info != nil {
		if info.GoVersion != "" {
			out.GoVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	if out.Version == "" {
		out.Version = "devel"
		if info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
			out.Version = info.Main.Version
		}
	}
	if out.Commit == "" && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified == "true" {
			rev += "-dirty"
		}
		out.Commit = rev
	}
	if out.Date == "" {
		out.Date = vcsTime
	}
	if out.Commit == "" {
		out.Commit = "unknown"
	}
	if out.Date == "" {
		out.Date = "unknown"
	}
	return out
}
