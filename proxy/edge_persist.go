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

	"github.com/signalbox/signalbox/internal/privfile"
)

// The tokens a node serves are kept beside its scopes' backups, so that a
// node restarted while its upstream is down serves the same SDKs from the
// same configurations. The file holds token secrets: it is written for the
// node's user only, through a new file of a random name created
// exclusively (0600) and renamed into place, in a folder only that user
// can write (created 0700 when missing); and a backup another user could
// have written, or in a folder another user can write, is never read. Its
// name depends on the upstream, so that two nodes of different upstreams
// sharing a folder never read each other's.

// DefaultEdgeBackupDir is the folder of a node's backups when BackupDir is
// not set: $XDG_STATE_HOME/signalbox, or ~/.local/state/signalbox when
// XDG_STATE_HOME is not set, or ./data when there is no home folder
// either.
func DefaultEdgeBackupDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "signalbox")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "state", "signalbox")
	}
	return "data"
}

func (e *Edge) tokensFile() string {
	dir := e.cfg.BackupDir
	sum := sha256.Sum256([]byte(e.cfg.UpstreamURL))
	return filepath.Join(dir, "signalbox-edge-tokens-"+hex.EncodeToString(sum[:8])+".json")
}

// loadTokens reads the tokens served before a restart; they are served
// until the upstream says otherwise.
func (e *Edge) loadTokens() []edgeToken {
	b, err := privfile.ReadFile(e.tokensFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if errors.Is(err, privfile.ErrNotPrivate) {
		e.log.Error("refusing a token backup another user could have written; set BACKUP_FOLDER to a folder only this user can write",
			"file", e.tokensFile(), "err", err)
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
	if err := privfile.WriteFile(path, b); err != nil {
		e.log.Warn("cannot write the token backup", "file", path, "err", err)
		return
	}
	e.savedTokens = string(b)
}
