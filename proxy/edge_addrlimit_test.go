package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAddrLimiterIsBounded(t *testing.T) {
	a := newAddrLimiter(0.001, 2, 100)
	now := time.Now()
	for i := range 1000 {
		a.allow(netip.AddrFrom4([4]byte{10, 0, byte(i / 256), byte(i % 256)}), now)
		if a.len() > 100 {
			t.Fatalf("%d addresses after %d", a.len(), i+1)
		}
	}
	me := netip.MustParseAddr("192.0.2.1")
	allowed := 0
	for range 3 {
		if a.allow(me, now) {
			allowed++
		}
	}
	if allowed != 2 {
		t.Errorf("an address got %d validations, want its burst of 2", allowed)
	}
	// The address seen last is remembered while others come and go.
	for i := range 99 {
		a.allow(netip.AddrFrom4([4]byte{10, 9, 0, byte(i)}), now)
	}
	if a.allow(me, now) {
		t.Error("a recently seen address was forgotten")
	}
}

// validatingUpstream is an upstream on loopback that knows the tokens
// whose secret starts with "good" and serves the test configuration.
type validatingUpstream struct {
	srv   *httptest.Server
	mu    sync.Mutex
	asked []string
}

func newValidatingUpstream(t *testing.T) *validatingUpstream {
	u := &validatingUpstream{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /edge/validate", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Tokens []string `json:"tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u.mu.Lock()
		u.asked = append(u.asked, body.Tokens...)
		u.mu.Unlock()
		out := []edgeToken{}
		for _, tok := range body.Tokens {
			if _, secret, _ := strings.Cut(tok, "."); strings.HasPrefix(secret, "good") {
				out = append(out, edgeToken{Token: tok, Type: tokenClient, Projects: []string{"*"}, Environment: "development"})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"tokens": out})
	})
	mux.HandleFunc("GET /api/client/features", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, testPayload)
	})
	mux.HandleFunc("POST /api/client/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) })
	u.srv = httptest.NewServer(mux)
	t.Cleanup(u.srv.Close)
	return u
}

func (u *validatingUpstream) askedCount() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.asked)
}

// clientFrom is an HTTP client whose connections leave from the loopback
// address ip, so that the node sees it as a client address of its own.
func clientFrom(t *testing.T, ip string) *http.Client {
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}

// One address sending made-up tokens spends its own validation budget,
// not the node's: a valid token new to the node, from another address, is
// still validated; a token already served never waits; a refused token
// sent again costs no budget.
func TestEdgeAddressFloodDoesNotStarveValidation(t *testing.T) {
	up := newValidatingUpstream(t)
	e, srv := runTestEdge(t, EdgeConfig{UpstreamURL: up.srv.URL, BackupDir: t.TempDir(),
		ValidationsPerSecond: 0.001, ValidationBurst: 50, // no refill while the test runs
	})

	get := func(c *http.Client, token string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/api/client/features", nil)
		req.Header.Set("Authorization", token)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	flooder, other := clientFrom(t, "127.0.0.2"), clientFrom(t, "127.0.0.3")

	perAddr := e.Config().AddressValidationBurst
	counts := map[int]int{}
	for i := range 120 {
		counts[get(flooder, fmt.Sprintf("*:development.made-up-%d", i))]++
	}
	if counts[http.StatusUnauthorized] != perAddr || counts[http.StatusTooManyRequests] != 120-perAddr {
		t.Errorf("the flooding address got %v, want %d refusals and then 429s", counts, perAddr)
	}
	if got := up.askedCount(); got != perAddr {
		t.Errorf("the upstream was asked about %d tokens, want %d", got, perAddr)
	}
	if got := get(flooder, "*:development.made-up-0"); got != http.StatusUnauthorized {
		t.Errorf("a token refused before: %d, want 401 from memory", got)
	}
	if got := up.askedCount(); got != perAddr {
		t.Errorf("a token refused before was asked about again (%d asks)", got)
	}

	const valid = "*:development.good-new-token"
	if got := get(other, valid); got != http.StatusOK {
		t.Fatalf("a valid token from another address during the flood: %d, want 200", got)
	}
	// The flooding address has no budget left, yet a token the node
	// serves needs none.
	if got := get(flooder, "*:development.good-unseen"); got != http.StatusTooManyRequests {
		t.Errorf("a new token from the spent address: %d, want 429", got)
	}
	if got := get(flooder, valid); got != http.StatusOK {
		t.Errorf("a served token from the spent address: %d, want 200", got)
	}

	// A downstream node asking from the spent address is told to come
	// back, not that the token is invalid.
	res, err := flooder.Post(srv.URL+"/edge/validate", "application/json", strings.NewReader(`{"tokens":["*:development.good-later"]}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Errorf("/edge/validate from the spent address: %d, want 429 with Retry-After", res.StatusCode)
	}
}
