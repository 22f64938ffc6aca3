package server

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/signalbox/signalbox/store"
)

// SDKs asking about flags that do not exist usually mean a typo or a flag
// deleted while code still checks it. The names reported in SDK metrics
// that are not flags of the reporting token's scope are kept here for a
// day, bounded whatever the SDKs send, and listed without the names that
// turn out to be flags of another project.

const (
	maxUnknownFlags      = 1000
	maxUnknownReports    = 20 // applications per name
	maxUnknownEnvs       = 10 // environments per application
	unknownFlagRetention = 24 * time.Hour
	maxUnknownNameBytes  = 200
)

type unknownFlag struct {
	lastSeen time.Time
	reports  map[string]map[string]time.Time // application → environment → last seen
}

// noteUnknown records that app asked about name in env. b.mu is held.
func (b *metricsBuffer) noteUnknown(name, app, env string, now time.Time) {
	if len(name) > maxUnknownNameBytes || name == "" {
		return
	}
	if b.unknown == nil {
		b.unknown = map[string]*unknownFlag{}
	}
	u := b.unknown[name]
	if u == nil {
		if len(b.unknown) >= maxUnknownFlags {
			b.pruneUnknown(now)
			if len(b.unknown) >= maxUnknownFlags {
				return // full of recent names: a flood of made-up ones adds nothing
			}
		}
		u = &unknownFlag{reports: map[string]map[string]time.Time{}}
		b.unknown[name] = u
	}
	u.lastSeen = now
	envs := u.reports[app]
	if envs == nil {
		if len(u.reports) >= maxUnknownReports {
			return
		}
		envs = map[string]time.Time{}
		u.reports[app] = envs
	}
	if _, ok := envs[env]; ok || len(envs) < maxUnknownEnvs {
		envs[env] = now
	}
}

// pruneUnknown forgets names not reported for a day. b.mu is held.
func (b *metricsBuffer) pruneUnknown(now time.Time) {
	for name, u := range b.unknown {
		if now.Sub(u.lastSeen) > unknownFlagRetention {
			delete(b.unknown, name)
		}
	}
}

type unknownFlagJSON struct {
	Name        string              `json:"name"`
	LastSeenAt  time.Time           `json:"lastSeenAt"`
	LastEventAt *time.Time          `json:"lastEventAt"`
	Reports     []unknownReportJSON `json:"reports"`
}

type unknownReportJSON struct {
	AppName      string           `json:"appName"`
	Environments []unknownEnvJSON `json:"environments"`
}

type unknownEnvJSON struct {
	Environment string    `json:"environment"`
	SeenAt      time.Time `json:"seenAt"`
}

// handleUnknownFlags lists the names SDKs reported in the last day that
// are no flag at all (archived flags count as flags), most recent first.
func (s *Server) handleUnknownFlags(w http.ResponseWriter, r *http.Request) error {
	now := s.now()
	b := s.metrics
	b.mu.Lock()
	b.pruneUnknown(now)
	out := make([]unknownFlagJSON, 0, len(b.unknown))
	for name, u := range b.unknown {
		f := unknownFlagJSON{Name: name, LastSeenAt: u.lastSeen, Reports: []unknownReportJSON{}}
		for app, envs := range u.reports {
			rep := unknownReportJSON{AppName: app, Environments: []unknownEnvJSON{}}
			for env, at := range envs {
				rep.Environments = append(rep.Environments, unknownEnvJSON{Environment: env, SeenAt: at})
			}
			slices.SortFunc(rep.Environments, func(a, b unknownEnvJSON) int { return strings.Compare(a.Environment, b.Environment) })
			f.Reports = append(f.Reports, rep)
		}
		slices.SortFunc(f.Reports, func(a, b unknownReportJSON) int { return strings.Compare(a.AppName, b.AppName) })
		out = append(out, f)
	}
	b.mu.Unlock()

	var flags []store.Feature
	if err := s.view(r.Context(), func(rd store.Reader) (err error) {
		flags, err = rd.ListFeatures(r.Context(), store.FeatureFilter{})
		return err
	}); err != nil {
		return err
	}
	exists := make(map[string]bool, len(flags))
	for _, f := range flags {
		exists[f.Name] = true
	}
	out = slices.DeleteFunc(out, func(f unknownFlagJSON) bool { return exists[f.Name] })
	slices.SortFunc(out, func(a, b unknownFlagJSON) int {
		if c := b.LastSeenAt.Compare(a.LastSeenAt); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return writeJSON(w, http.StatusOK, map[string]any{"unknownFlags": out})
}
