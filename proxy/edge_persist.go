package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The tokens a node serves are kept beside its scopes' backups, so that a
// node restarted while its upstream is down serves the same SDKs from the
// same configurations. The file holds token secrets: it is written for the
// node's user only. Its name depends on the upstream, so that two nodes of
// different upstreams sharing a folder never read each other's.

func (e *Edge) tokensFile() string {
	dir := e.cfg.BackupDir
	if dir == "" {
		dir = os.TempDir()
	}
	sum := sha256.Sum256([]byte(e.cfg.UpstreamURL))
	return filepath.Join(dir, "signalbox-edge-tokens-"+hex.EncodeToString(sum[:8])+".json")
}

// loadTokens reads the tokens served before a restart; they are served
// until the upstream says otherwise.
func (e *Edge) loadTokens() []edgeToken {
	b, err := os.ReadFile(e.tokensFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var saved []edgeToken
	if err == nil {
		err = json.Unmarshal(b, &saved)
	}
	if err != nil {
		e.log.Warn("ignoring an unreadable token backup", "file", e.tokensFile(), "err", err)
		return nil
	}
	valid := saved[:0]
	for _, t := range saved {
		if _, _, ok := splitToken(t.Token); ok && (t.Type == tokenClient || t.Type == tokenFrontend) && t.Environment != "" && len(t.Projects) > 0 {
			valid = append(valid, t)
		}
	}
	return valid
}

// saveTokens writes the tokens being served when they changed. e.mu is
// held.
func (e *Edge) saveTokens(tokens map[string]edgeToken) {
	if e.cfg.Offline {
		return
	}
	list := make([]edgeToken, 0, len(tokens))
	for _, t := range tokens {
		if !e.pretrusted[t.Token] {
			list = append(list, t)
		}
	}
	slices.SortFunc(list, func(a, b edgeToken) int { return strings.Compare(a.Token, b.Token) })
	b, _ := json.Marshal(list)
	if string(b) == e.savedTokens {
		return
	}
	path := e.tokensFile()
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, b, 0o600)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		e.log.Warn("cannot write the token backup", "file", path, "err", err)
		return
	}
	e.savedTokens = string(b)
}
