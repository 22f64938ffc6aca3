package server

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
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
