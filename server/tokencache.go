package server

import (
	"context"
	"sync"
	"time"

	"github.com/signalbox/signalbox/store"
)

// tokenCache holds every API token by secret hash, loaded once per store
// revision (creating, changing or deleting a token writes an audit event, so
// the revision moves). SDK polls are then authenticated from memory, and a
// 304 answer touches no database.
type tokenCache struct {
	mu       sync.Mutex
	revision int64
	loaded   bool
	byHash   map[string]store.APIToken
	seen     map[string]time.Time // hashes used since the last flush
}

func (s *Server) cachedToken(ctx context.Context, hash string) (store.APIToken, bool, error) {
	c := &s.tokens
	rev := s.revision.Load()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded || c.revision < rev {
		var list []store.APIToken
		err := s.view(ctx, func(r store.Reader) (err error) {
			list, err = r.ListAPITokens(ctx, store.APITokenFilter{})
			return err
		})
		if err != nil {
			return store.APIToken{}, false, err
		}
		c.byHash = make(map[string]store.APIToken, len(list))
		for _, t := range list {
			c.byHash[t.SecretHash] = t
		}
		c.revision, c.loaded = rev, true
	}
	t, ok := c.byHash[hash]
	if ok {
		if c.seen == nil {
			c.seen = map[string]time.Time{}
		}
		c.seen[hash] = s.now()
	}
	return t, ok, nil
}

// takeSeenTokens returns and forgets the hashes used since the last call.
func (s *Server) takeSeenTokens() map[string]time.Time {
	c := &s.tokens
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := c.seen
	c.seen = nil
	return seen
}
