package store

import (
	"context"
	"encoding/json"
	"time"
)

// Setting is one named instance setting, such as the SAML configuration: a
// JSON document the store keeps whole and never looks into.
type Setting struct {
	// Name identifies the setting, for example
	// "unleash.enterprise.auth.saml".
	Name string
	// Value is the JSON document. It is compared as JSON, not as bytes: a
	// database may reorder object keys or change white space.
	Value     json.RawMessage
	UpdatedAt time.Time
}

// SettingReader reads instance settings such as the SAML configuration.
type SettingReader interface {
	// GetSetting returns the setting name. NotFound if it was never stored.
	GetSetting(ctx context.Context, name string) (Setting, error)
}

// SettingWriter changes instance settings.
type SettingWriter interface {
	// PutSetting stores s, replacing any earlier value of s.Name, and
	// returns it as stored; a zero UpdatedAt is set to now. BadData if the
	// name is empty or Value is not valid JSON.
	PutSetting(ctx context.Context, s Setting) (Setting, error)
	// InitSetting stores s only if no setting s.Name exists yet, and returns
	// the setting that is stored afterwards: s, or the earlier one, which
	// it leaves unchanged. It is for values the server generates for
	// itself (such as its own SAML signing key), which every instance
	// sharing the database must agree on. Operational: needs no audit
	// event. BadData as for PutSetting.
	InitSetting(ctx context.Context, s Setting) (Setting, error)
}

// UsedIDWriter remembers one-time ids, such as those of SAML assertions and
// authentication requests, so that none is accepted twice, not even by
// another instance sharing the database. Operational: needs no audit
// event.
type UsedIDWriter interface {
	// UseID records id as used until expires and reports whether it was
	// unused: false, changing nothing, if id is recorded already and its
	// record has not expired at now. Records that expired before now are
	// deleted, so the table holds only ids that could still be presented.
	// BadData if id is empty.
	UseID(ctx context.Context, id string, expires, now time.Time) (unused bool, err error)
}
