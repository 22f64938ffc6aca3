package proxy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// StorageProvider keeps the last good upstream configuration so that a
// restarted proxy can serve at once while the upstream is down. The key
// (see BackupKey) names the app and the configuration's source: the
// upstream URL with its filters and the token, so that a backup written
// for another upstream or token is never read. Get returns nil data and a
// nil error when nothing is stored (an error wrapping fs.ErrNotExist is
// taken the same way). Implementations must be safe for concurrent use.
type StorageProvider interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Set(ctx context.Context, key string, data []byte) error
}

// BackupKey is the storage key of the configuration a proxy with cfg
// fetches: the app name, then the first 16 hex digits of the SHA-256 of
// the features URL (with the namePrefix, project and tag filters) and the
// token, separated by a newline. The token itself never appears in it.
func BackupKey(cfg Config) string {
	cfg = cfg.withDefaults()
	sum := sha256.Sum256([]byte(featuresURL(cfg) + "\n" + cfg.ServiceAPIToken))
	return cfg.ServiceAppName + "-" + hex.EncodeToString(sum[:8])
}

// FileStorage is the default StorageProvider: one file per key in Dir,
// signalbox-proxy-backup-<app name>-<hash>.json (see BackupKey).
type FileStorage struct {
	// Dir holds the files; empty means the OS temporary directory.
	Dir string
}

// Path is the file that holds key.
func (s FileStorage) Path(key string) string {
	dir := s.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "signalbox-proxy-backup-"+safeFileName(key)+".json")
}

// Get reads the file of key; a missing file is (nil, nil).
func (s FileStorage) Get(_ context.Context, key string) ([]byte, error) {
	b, err := os.ReadFile(s.Path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Set replaces the file of key atomically (write a temporary file, then
// rename), so that a crash never leaves half a backup behind.
func (s FileStorage) Set(_ context.Context, key string, data []byte) error {
	path := s.Path(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".backup-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// safeFileName keeps letters, digits, '.', '_' and '-' of key and replaces
// the rest, so an app name can never climb out of Dir.
func safeFileName(key string) string {
	var b strings.Builder
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}
