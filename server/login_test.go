package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// login posts a sign-in.
func (ts *testServer) login(username, password string) response {
	ts.t.Helper()
	return ts.request("POST", "/auth/simple/login", "", map[string]string{"username": username, "password": password})
}

// limiterEntries counts what the sign-in limiter holds.
func limiterEntries(s *Server) int {
	s.logins.mu.Lock()
	defer s.logins.mu.Unlock()
	return s.logins.users.len() + s.logins.names.len() + s.logins.addrs.len()
}

// mustTooMany checks a refused sign-in: 429, a message that says how long
// to wait and the same wait in Retry-After.
func mustTooMany(t *testing.T, res response) {
	t.Helper()
	mustErrorRecord(t, res, http.StatusTooManyRequests, "TooManyRequestsError", "")
	secs, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	msg, _ := res.Object()["message"].(string)
	if !strings.HasPrefix(msg, "too many failed sign-ins; try again in "+strconv.Itoa(secs)+" second") {
		t.Fatalf("message %q, Retry-After %d", msg, secs)
	}
}

// Parallel guesses must not all pass a check made before any of them
// failed: of 20 at once, at most the 5 free attempts reach the password
// check.
func TestLoginParallelGuessesAreCounted(t *testing.T) {
	ts := newTestServer(t)
	const guesses = 20
	statuses := make(chan int, guesses)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range guesses {
		wg.Go(func() {
			<-start
			statuses <- ts.login("admin", fmt.Sprintf("Wrong-guess-%d", i)).Status
		})
	}
	close(start)
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusUnauthorized] > accountLimit.free || count[http.StatusUnauthorized]+count[http.StatusTooManyRequests] != guesses {
		t.Fatalf("answers %v: want at most %d wrong-password answers, the rest 429", count, accountLimit.free)
	}
	if got := ts.srv.passwordChecks.Load(); got != int64(count[http.StatusUnauthorized]) {
		t.Fatalf("%d password checks for %d wrong-password answers", got, count[http.StatusUnauthorized])
	}
	// The right password waits too: the guesses used up the free attempts.
	mustTooMany(t, ts.login("admin", testAdminPassword))
}

// The username and the e-mail of one user share one count, whatever the
// case they are written in.
func TestLoginEmailAndUsernameShareTheLimit(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/user-admin", map[string]any{"username": "ada", "email": "ada@example.com", "rootRole": "Editor", "password": strongPassword}).must(t, http.StatusCreated)
	for i, login := range []string{"ada", "ada@example.com", "ADA@Example.com", "Ada", "ada@example.com"} {
		if i == accountLimit.free {
			break
		}
		ts.login(login, "Wrong-Password-1").must(t, http.StatusUnauthorized)
	}
	mustTooMany(t, ts.login("ada@example.com", strongPassword))
	mustTooMany(t, ts.login("ada", strongPassword))
	// Another account is not affected.
	ts.login("admin", testAdminPassword).must(t, http.StatusOK)
}

// Oversized inputs are refused before they are looked up or counted.
func TestLoginInputLimits(t *testing.T) {
	ts := newTestServer(t)
	cases := []struct {
		name string
		body map[string]string
		path string
	}{
		{"1.9 MB username", map[string]string{"username": strings.Repeat("a", 1_900_000), "password": "Whatever-1"}, "username"},
		{"257-character username", map[string]string{"username": strings.Repeat("é", 257), "password": "Whatever-1"}, "username"},
		{"long e-mail", map[string]string{"email": strings.Repeat("a", 300) + "@example.com", "password": "Whatever-1"}, "email"},
		{"1,025-character password", map[string]string{"username": "admin", "password": strings.Repeat("x", 1025)}, "password"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			mustErrorRecord(t, ts.request("POST", "/auth/simple/login", "", tt.body), http.StatusBadRequest, "ValidationError", tt.path)
		})
	}
	if n := limiterEntries(ts.srv); n != 0 {
		t.Errorf("the limiter holds %d entries after refused inputs", n)
	}
	if n := ts.srv.passwordChecks.Load(); n != 0 {
		t.Errorf("%d password checks for refused inputs", n)
	}
	// At the limits, inputs are read and checked.
	ts.login(strings.Repeat("a", maxLoginNameRunes), strings.Repeat("x", maxPasswordRunes)).must(t, http.StatusUnauthorized)
}

// A name that matches nobody, and a user without a password, cost one
// bcrypt comparison like a known user does, and get the same answer.
func TestLoginUnknownUserCostsAPasswordCheck(t *testing.T) {
	ts := newTestServer(t)
	ts.admin("POST", "/api/admin/user-admin", map[string]any{"username": "sso-only", "rootRole": "Viewer"}).must(t, http.StatusCreated)
	var messages []string
	for i, login := range []string{"nobody-here", "sso-only", "admin"} {
		res := ts.login(login, "Wrong-Password-1")
		mustErrorRecord(t, res, http.StatusUnauthorized, "PasswordMismatch", "")
		messages = append(messages, res.Object()["message"].(string))
		if got := ts.srv.passwordChecks.Load(); got != int64(i+1) {
			t.Fatalf("after %s: %d password checks, want %d", login, got, i+1)
		}
	}
	if messages[0] != messages[1] || messages[1] != messages[2] {
		t.Errorf("answers differ: %q", messages)
	}
}

// One client address gets a bounded number of failures over all names.
func TestLoginLimitPerAddress(t *testing.T) {
	ts := newTestServer(t)
	for i := range addressLimit.free {
		ts.login(fmt.Sprintf("sprayed-%d", i), "Wrong-Password-1").must(t, http.StatusUnauthorized)
	}
	mustTooMany(t, ts.login("another-name", "Wrong-Password-1"))
	mustTooMany(t, ts.login("admin", testAdminPassword))
	if got := ts.srv.passwordChecks.Load(); got != int64(addressLimit.free) {
		t.Errorf("%d password checks, want %d", got, addressLimit.free)
	}
}

// The old password of change-password counts like a sign-in: guessing it
// through a session is limited, and shares the account's count.
func TestChangePasswordOldPasswordIsLimited(t *testing.T) {
	ts := newTestServer(t)
	createTestUser(t, ts, "erin", "Editor", strongPassword)
	cookie := signIn(t, ts, "erin", strongPassword)
	for range accountLimit.free {
		mustErrorRecord(t, ts.asSession(cookie, "POST", "/api/admin/user/change-password",
			map[string]any{"password": "New-Password-42", "oldPassword": "Wrong-Guess-1"}), http.StatusUnauthorized, "PasswordMismatch", "")
	}
	mustTooMany(t, ts.asSession(cookie, "POST", "/api/admin/user/change-password",
		map[string]any{"password": "New-Password-42", "oldPassword": strongPassword}))
	mustTooMany(t, ts.login("erin", strongPassword))
}

// testClock is a clock tests move by hand.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// fail makes one failed attempt, which must be allowed.
func fail(t *testing.T, l *loginLimiter, key, addr string) {
	t.Helper()
	a, wait := l.reserve(key, addr)
	if a == nil {
		t.Fatalf("attempt for %s refused, wait %v", key, wait)
	}
	a.done(false)
}

// After the free failures, each failure doubles the wait, up to a ceiling:
// a stranger delays the real user, but cannot lock them out for long.
func TestLoginBackoff(t *testing.T) {
	clock := &testClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newLoginLimiter(clock.now)
	key := accountKey(7)
	for range accountLimit.free {
		fail(t, l, key, "")
	}
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if a, wait := l.reserve(key, ""); a != nil || wait != want {
			t.Fatalf("wait %v, want %v", wait, want)
		}
		clock.advance(want)
		fail(t, l, key, "")
	}
	for range 20 {
		_, wait := l.reserve(key, "")
		if wait > accountLimit.max {
			t.Fatalf("wait %v beyond the ceiling %v", wait, accountLimit.max)
		}
		clock.advance(wait)
		fail(t, l, key, "")
	}
	if _, wait := l.reserve(key, ""); wait != accountLimit.max {
		t.Fatalf("wait %v, want the ceiling %v", wait, accountLimit.max)
	}
	// The real user, once through, starts over.
	clock.advance(accountLimit.max)
	a, _ := l.reserve(key, "")
	a.done(true)
	for range accountLimit.free {
		fail(t, l, key, "")
	}
	// A count with no failure for long is forgotten: the free attempts are
	// back, with no wait between them.
	clock.advance(accountLimit.forget + time.Minute)
	for range accountLimit.free {
		fail(t, l, key, "")
	}
}

// Reporting an attempt twice counts it once.
func TestLoginAttemptDoneOnce(t *testing.T) {
	l := newLoginLimiter(time.Now)
	for range accountLimit.free - 1 {
		a, _ := l.reserve(accountKey(1), "")
		a.done(false)
		a.done(false)
	}
	fail(t, l, accountKey(1), "")
}

// A spray of made-up names fills its own bounded table: it neither grows
// memory without bound nor pushes out a real account's count.
// The clock stands still, so that a slow machine's spray does not outlast
// the account's wait.
func TestLoginSprayKeepsAccountCounts(t *testing.T) {
	clock := &testClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	l := newLoginLimiter(clock.now)
	victim := accountKey(1)
	for range accountLimit.free {
		fail(t, l, victim, "192.0.2.1")
	}
	for i := range maxNameEntries + 1000 {
		a, _ := l.reserve(unknownLoginKey(fmt.Sprintf("sprayed-%d", i)), fmt.Sprintf("2001:db8::%x", i))
		if a != nil {
			a.done(false)
		}
	}
	if n := l.names.len(); n > maxNameEntries {
		t.Errorf("%d unknown names held, want at most %d", n, maxNameEntries)
	}
	if a, wait := l.reserve(victim, "192.0.2.1"); a != nil || wait <= 0 {
		t.Fatal("the spray reset the account's count")
	}
}
