package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/signalbox/signalbox/store"
)

// tokenCache holds every API token by the SHA-256 digest of its secret,
// loaded once per store revision (creating, changing or deleting a token
// writes an audit event, so the revision moves). SDK polls are then
// authenticated from memory without a lock, and a 304 answer touches no
// database.
type tokenCache struct {
	reload  sync.Mutex // one reload at a time
	current atomic.Pointer[tokenSet]
}

// tokenSet is one loaded generation of the cache; it never changes but
// for the tokens' use marks.
type tokenSet struct {
	revision int64
	byDigest map[[sha256.Size]byte]*cachedToken
	// recent remembers secrets found lately, so that an SDK polling with
	// the same secret again skips the digest (0.4 µs of a 23 µs poll). A
	// secret's slot is chosen by a hash seeded at random per set, and it
	// is compared with the slot's in constant time. Only secrets of tokens
	// in this set go in, and a new set (any token change) starts empty.
	seed   maphash.Seed
	recent [recentSecrets]atomic.Pointer[recentSecret]
}

// recentSecrets bounds tokenSet.recent; SDKs polling with more tokens
// than that at once only share slots, and some polls take the digest.
const recentSecrets = 64

type recentSecret struct {
	secret string
	token  *cachedToken
}

// find returns the token whose secret is given, or nil.
func (set *tokenSet) find(secret string) *cachedToken {
	slot := &set.recent[maphash.String(set.seed, secret)%recentSecrets]
	if r := slot.Load(); r != nil && sameSecret(r.secret, secret) {
		return r.token
	}
	t := set.byDigest[secretDigest(secret)]
	if t != nil {
		// A copy: the request's string may share memory with the rest of
		// its headers.
		slot.Store(&recentSecret{secret: strings.Clone(secret), token: t})
	}
	return t
}

// sameSecret compares two secrets in time that depends on their length
// only (as subtle.ConstantTimeCompare, without copying them to slices).
func sameSecret(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	var diff byte
	for i := 0; i < len(a); i++ {
		diff |= a[i] ^ b[i]
	}
	return subtle.ConstantTimeByteEq(diff, 0) == 1
}

// cachedToken is a token shared by every request that presents it:
// read-only, except for the time it was last used.
type cachedToken struct {
	store.APIToken
	seen atomic.Bool // used since the last flush
}

// tokenSet returns the set for the current revision, loading it if needed.
func (s *Server) tokenSet(ctx context.Context) (*tokenSet, error) {
	c := &s.tokens
	rev := s.revision.Load()
	if set := c.current.Load(); set != nil && set.revision >= rev {
		return set, nil
	}
	c.reload.Lock()
	defer c.reload.Unlock()
	old := c.current.Load()
	if old != nil && old.revision >= rev {
		return old, nil
	}
	var list []store.APIToken
	err := s.view(ctx, func(r store.Reader) (err error) {
		list, err = r.ListAPITokens(ctx, store.APITokenFilter{})
		return err
	})
	if err != nil {
		if old != nil {
			// The database does not answer: the tokens read last stay
			// valid, so that SDKs keep being served; the set is read
			// again on the next request.
			return old, nil
		}
		return nil, err
	}
	set := &tokenSet{revision: rev, byDigest: make(map[[sha256.Size]byte]*cachedToken, len(list)), seed: maphash.MakeSeed()}
	for _, t := range list {
		var d [sha256.Size]byte
		if n, err := hex.Decode(d[:], []byte(t.SecretHash)); err != nil || n != len(d) {
			continue // not a hash of ours: no secret can match it
		}
		ct := &cachedToken{APIToken: t}
		if old != nil {
			if prev := old.byDigest[d]; prev != nil {
				ct.seen.Store(prev.seen.Load()) // keep use not yet flushed
			}
		}
		set.byDigest[d] = ct
	}
	c.current.Store(set)
	return set, nil
}

// tokenBySecret finds the token whose secret is given and marks it used.
// The token returned is shared: callers must not change it. (Finding it
// by the digest is as safe as comparing digests in constant time: the
// time a lookup takes tells nothing about a secret that is not known.)
func (s *Server) tokenBySecret(ctx context.Context, secret string) (*store.APIToken, bool, error) {
	set, err := s.tokenSet(ctx)
	if err != nil {
		return nil, false, err
	}
	t := set.find(secret)
	if t == nil {
		return nil, false, nil
	}
	if !t.seen.Load() { // a load first: most uses find it set already
		t.seen.Store(true)
	}
	return &t.APIToken, true, nil
}

// secretDigest is the SHA-256 digest of secret, the key of
// tokenSet.byDigest. The secret is copied into a buffer on the stack:
// converting it with []byte(secret) would allocate on every request, as
// secrets are longer than the 32 bytes the compiler keeps on the stack.
// A secret longer than the buffer is copied to the heap instead.
func secretDigest(secret string) [sha256.Size]byte {
	var buf [128]byte
	return sha256.Sum256(append(buf[:0], secret...))
}

// takeSeenTokens returns and forgets the hashes of the tokens used since
// the last call.
func (s *Server) takeSeenTokens() []string {
	set := s.tokens.current.Load()
	if set == nil {
		return nil
	}
	var seen []string
	for _, t := range set.byDigest {
		if t.seen.Swap(false) {
			seen = append(seen, t.SecretHash)
		}
	}
	return seen
}
