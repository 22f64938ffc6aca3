package server

import (
	"context"
	"crypto/sha256"
	"hash/maphash"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/signalbox/signalbox/store"
)

// TestTokenUseRecorded: a token that authenticated a request is marked as
// seen at the next flush, once, and only that token — also when the token
// set was reloaded in between (a new token moves the revision).
func TestTokenUseRecorded(t *testing.T) {
	ctx := context.Background()
	ts := newTestServer(t)
	seen := func() map[string]bool {
		t.Helper()
		out := map[string]bool{}
		err := ts.srv.store.View(ctx, func(r store.Reader) error {
			list, err := r.ListAPITokens(ctx, store.APITokenFilter{})
			for _, tok := range list {
				out[tok.SecretHash] = tok.SeenAt != nil
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	client, prod := store.HashSecret(testClientToken), store.HashSecret(testProdToken)

	ts.request("GET", "/api/client/features", testClientToken, nil).must(t, http.StatusOK)
	if seen()[client] {
		t.Fatal("use recorded before the flush")
	}
	// A new token reloads the cache before the flush.
	ts.admin("POST", "/api/admin/api-tokens", map[string]any{"type": "client", "tokenName": "other"}).must(t, http.StatusCreated)
	ts.request("GET", "/api/client/features", testFrontendToken+"-wrong", nil).must(t, http.StatusUnauthorized)
	if err := ts.srv.FlushMetrics(ctx); err != nil {
		t.Fatal(err)
	}
	got := seen()
	if !got[client] || got[prod] {
		t.Fatalf("after the flush: client seen %v, unused production token seen %v", got[client], got[prod])
	}
	if hashes := ts.srv.takeSeenTokens(); len(hashes) != 0 {
		t.Fatalf("marks left after the flush: %v", hashes)
	}
}

// TestSecretDigest: the digest is SHA-256 of the secret at every length,
// the stack buffer's and beyond, and finding a token by a secret of usual
// length allocates nothing.
func TestSecretDigest(t *testing.T) {
	for _, n := range []int{0, 1, 32, 127, 128, 129, 1000} {
		secret := strings.Repeat("s", n)
		if got, want := secretDigest(secret), sha256.Sum256([]byte(secret)); got != want {
			t.Errorf("secretDigest of %d bytes = %x, want %x", n, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { digestSink = secretDigest(testClientToken) }); n != 0 {
		t.Errorf("secretDigest allocates %v times, want 0", n)
	}
}

var digestSink [sha256.Size]byte

// TestRecentSecrets: a secret found once is found again from its slot, and
// a slot answers only for the very secret it holds.
func TestRecentSecrets(t *testing.T) {
	known := &cachedToken{APIToken: store.APIToken{TokenName: "known"}}
	const secret = "default:development.0123456789abcdef"
	newSet := func() *tokenSet {
		return &tokenSet{byDigest: map[[sha256.Size]byte]*cachedToken{secretDigest(secret): known}, seed: maphash.MakeSeed()}
	}
	slotOf := func(set *tokenSet, s string) *atomic.Pointer[recentSecret] {
		return &set.recent[maphash.String(set.seed, s)%recentSecrets]
	}

	set := newSet()
	if got := set.find(secret); got != known {
		t.Fatalf("find = %v, want the token", got)
	}
	if r := slotOf(set, secret).Load(); r == nil || r.secret != secret || r.token != known {
		t.Fatalf("the secret is not remembered in its slot: %+v", r)
	}
	// From the slot alone: the digest no longer knows it.
	delete(set.byDigest, secretDigest(secret))
	if got := set.find(secret); got != known {
		t.Errorf("a remembered secret is not found from its slot")
	}

	wrong := []string{
		secret[:len(secret)-1] + "0", // same length, last byte differs
		"x" + secret[1:],             // first byte differs
		secret[:len(secret)-1],       // a prefix
		secret + "0",                 // longer
		"",
	}
	for _, w := range wrong {
		set := newSet()
		// The slot the wrong secret lands in holds the right one.
		slotOf(set, w).Store(&recentSecret{secret: secret, token: known})
		if got := set.find(w); got != nil {
			t.Errorf("find(%q) = %v, want nil", w, got)
		}
		if r := slotOf(set, w).Load(); r.secret != secret {
			t.Errorf("find(%q) replaced the slot with %q: only tokens' secrets go in", w, r.secret)
		}
	}
}
