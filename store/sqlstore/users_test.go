package sqlstore

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/signalbox/signalbox/store"
)

// TestGetUserByLoginPrefersEmail stores, below the store's checks, two
// users sharing a sign-in name as a database written before names were
// unique across e-mails and usernames may hold them: the older one has it
// as its username, the newer as its e-mail. Signing in and password
// resets with that name reach the user whose e-mail it is.
func TestGetUserByLoginPrefersEmail(t *testing.T) {
	s, err := Open(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "signalbox.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, u := range []struct{ name, email, username string }{
		{"squatter", "", "Owner@Example.com"},
		{"owner", "owner@example.com", ""},
	} {
		_, err := s.wdb.ExecContext(t.Context(), `INSERT INTO users (name, email, username, root_role, created_at) VALUES (?, ?, ?, ?, ?)`,
			u.name, nullIfEmpty(u.email), nullIfEmpty(u.username), store.RoleViewer, timeArg(time.Now()))
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, login := range []string{"owner@example.com", "OWNER@EXAMPLE.COM"} {
		var u store.User
		err := s.View(t.Context(), func(r store.Reader) (err error) {
			u, err = r.GetUserByLogin(t.Context(), login)
			return err
		})
		if err != nil || u.Name != "owner" {
			t.Errorf("GetUserByLogin(%q) = %q, %v; want the user whose e-mail it is", login, u.Name, err)
		}
	}
}
