package proxy

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/signalbox/signalbox/clientapi"
)

// Offline mode: the flags come from a bootstrap file, the tokens from the
// configuration, and nothing is asked of an upstream. Each token's projects
// are those its string names ("*" for all); "[]" tokens cannot be served
// offline, as only an upstream knows their projects.

// offlineUpstream stands in for the upstream of offline scopes, whose
// proxies never run.
const offlineUpstream = "http://offline.invalid/api"

func (e *Edge) startOffline() error {
	payload, stamp, err := readBootstrap(e.cfg.BootstrapFile)
	if err != nil {
		return err
	}
	var valid []edgeToken
	for _, list := range []struct {
		kind   string
		tokens []string
	}{{tokenClient, e.cfg.ClientTokens}, {tokenFrontend, e.cfg.FrontendTokens}} {
		for _, t := range nonBlank(list.tokens) {
			project, env, _ := splitToken(t)
			if project == "[]" {
				return fmt.Errorf("token %s: a token for several projects cannot be served offline; name one project or *", redactToken(t))
			}
			valid = append(valid, edgeToken{Token: t, Type: list.kind, Projects: []string{project}, Environment: env})
		}
	}
	e.serve(valid)
	e.installOffline(payload)
	e.bootstrapStamp = stamp
	return nil
}

// installOffline gives every scope the bootstrap's flags of its projects.
func (e *Edge) installOffline(payload *clientapi.Features) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, sc := range e.scopes {
		sc.p.install(onlyProjects(payload, sc.info.Projects), fromBootstrap)
	}
}

// watchBootstrap reads the bootstrap file again whenever it changes, until
// ctx ends. A file that cannot be read or parsed leaves the flags as they
// were.
func (e *Edge) watchBootstrap(ctx context.Context) {
	t := time.NewTicker(e.cfg.ReloadInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fi, err := os.Stat(e.cfg.BootstrapFile)
		if err != nil || fileStamp(fi) == e.bootstrapStamp {
			continue
		}
		payload, stamp, err := readBootstrap(e.cfg.BootstrapFile)
		if err != nil {
			e.log.Warn("cannot reload the bootstrap file; serving the flags as before", "err", err)
			e.bootstrapStamp = fileStamp(fi)
			continue
		}
		e.installOffline(payload)
		e.bootstrapStamp = stamp
		e.log.Info("bootstrap file reloaded", "flags", len(payload.Features))
	}
}

func fileStamp(fi os.FileInfo) string {
	return fmt.Sprintf("%d-%d", fi.ModTime().UnixNano(), fi.Size())
}

func readBootstrap(path string) (*clientapi.Features, string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, "", fmt.Errorf("BOOTSTRAP_FILE: %w", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("BOOTSTRAP_FILE: %w", err)
	}
	f, err := parseFeatures(data)
	if err != nil {
		return nil, "", fmt.Errorf("BOOTSTRAP_FILE %s: %w", path, err)
	}
	return f, fileStamp(fi), nil
}

// onlyProjects keeps the flags of projects ("*" keeps all) and the
// segments they use, so that a scope of some projects never carries the
// constraints of segments only other projects use.
func onlyProjects(f *clientapi.Features, projects []string) *clientapi.Features {
	if slices.Contains(projects, "*") {
		return f
	}
	out := *f
	out.Features = make([]clientapi.Feature, 0, len(f.Features))
	used := map[int]bool{}
	for _, ft := range f.Features {
		if ft.Project == "" || slices.Contains(projects, ft.Project) {
			out.Features = append(out.Features, ft)
			for _, st := range ft.Strategies {
				for _, id := range st.Segments {
					used[id] = true
				}
			}
		}
	}
	if f.Segments != nil {
		out.Segments = make([]clientapi.Segment, 0, len(used))
		for _, sg := range f.Segments {
			if used[sg.ID] {
				out.Segments = append(out.Segments, sg)
			}
		}
	}
	return &out
}
