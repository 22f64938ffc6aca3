package server

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// loginLimiter slows down password guessing. Failed password checks are
// counted per account (a user's id, so that the username and the e-mail of
// one user share a count; a login name that matches nobody is counted by
// that name, so that known and unknown names behave alike) and per client
// address. A few failures are free; after them each further failure doubles
// the wait before the next attempt, up to a ceiling. A stranger guessing at
// someone's name thus delays that person by minutes at most rather than
// locking them out, and a guesser gets a handful of tries an hour.
//
// An attempt is reserved before the password is checked and reported after,
// so parallel guesses cannot all pass a check made before any of them
// failed: once the free attempts are taken (counting those in flight), one
// attempt at a time proceeds, each after its wait.
//
// Memory is bounded: each table keeps a fixed number of entries and forgets
// the least recently used. Names that match no account live in their own
// table, so a spray of made-up names cannot push out real accounts' counts.
type loginLimiter struct {
	now   func() time.Time
	mu    sync.Mutex
	users *attemptTable // "u:<id>" of existing accounts
	names *attemptTable // "n:<lower-case login>" matching no account
	addrs *attemptTable // client addresses
}

// limitPolicy is how one kind of key is slowed down.
type limitPolicy struct {
	free   int           // failures allowed without a wait
	base   time.Duration // wait after the first failure beyond free
	max    time.Duration // the longest wait
	forget time.Duration // a count with no failure for this long starts over
}

var (
	// accountLimit applies to each account (or unknown name).
	accountLimit = limitPolicy{free: 5, base: time.Second, max: 5 * time.Minute, forget: 15 * time.Minute}
	// addressLimit applies to each client address, over all names: offices
	// behind one address get more room than one account.
	addressLimit = limitPolicy{free: 30, base: time.Second, max: 5 * time.Minute, forget: 15 * time.Minute}
)

// Table sizes. Entries are small (well under 200 bytes), so the tables stay
// within a few tens of megabytes whatever is sent.
const (
	maxAccountEntries = 100_000
	maxNameEntries    = 50_000
	maxAddressEntries = 100_000
)

func newLoginLimiter(now func() time.Time) *loginLimiter {
	return &loginLimiter{
		now:   now,
		users: newAttemptTable(maxAccountEntries),
		names: newAttemptTable(maxNameEntries),
		addrs: newAttemptTable(maxAddressEntries),
	}
}

// accountKey is the limiter key of an existing user.
func accountKey(userID int) string { return "u:" + strconv.Itoa(userID) }

// unknownLoginKey is the limiter key of a login name that matches no user:
// a digest, so that long names take no more room than short ones.
func unknownLoginKey(login string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(login)))
	return "n:" + hex.EncodeToString(sum[:16])
}

// loginAttempt is a reserved attempt; report its outcome with done.
type loginAttempt struct {
	l         *loginLimiter
	key, addr string
	reported  bool
}

// reserve asks for an attempt for account key from client address addr
// ("" when unknown: only the account is limited then). When it is refused,
// wait is how long to wait before asking again.
func (l *loginLimiter) reserve(key, addr string) (a *loginAttempt, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	acct := l.tableOf(key).get(key, now, accountLimit)
	wait = acct.wait(now, accountLimit)
	var ip *attemptState
	if addr != "" {
		ip = l.addrs.get(addr, now, addressLimit)
		wait = max(wait, ip.wait(now, addressLimit))
	}
	if wait > 0 {
		return nil, wait
	}
	acct.inflight++
	if ip != nil {
		ip.inflight++
	}
	return &loginAttempt{l: l, key: key, addr: addr}, 0
}

// done reports the outcome of the attempt. Success clears the account's
// count but not the address's: one's own account must not be a way to go
// on guessing at others. Calling done again does nothing.
func (a *loginAttempt) done(ok bool) {
	l := a.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if a.reported {
		return
	}
	a.reported = true
	now := l.now()
	table := l.tableOf(a.key)
	st := table.peek(a.key)
	if st == nil && !ok {
		// Pushed out while in flight: count the failure afresh.
		st = table.get(a.key, now, accountLimit)
		st.inflight++
	}
	if st != nil {
		st.settle(ok, ok, now)
		if ok && st.inflight == 0 {
			table.remove(a.key)
		}
	}
	if a.addr != "" {
		if st := l.addrs.peek(a.addr); st != nil {
			st.settle(ok, false, now)
		}
	}
}

// tableOf is the table that holds key.
func (l *loginLimiter) tableOf(key string) *attemptTable {
	if strings.HasPrefix(key, "u:") {
		return l.users
	}
	return l.names
}

// attemptState is what the limiter knows of one key.
type attemptState struct {
	failures int       // failures since the last success (or forgetting)
	inflight int       // reserved attempts not yet reported
	last     time.Time // the latest failure
}

// wait is how long the next attempt must wait; while the free attempts are
// used up, one attempt in flight blocks the others.
func (st *attemptState) wait(now time.Time, p limitPolicy) time.Duration {
	if st.failures+st.inflight < p.free {
		return 0
	}
	if st.inflight > 0 {
		return time.Second
	}
	d := p.delay(st.failures) - now.Sub(st.last)
	if d <= 0 {
		return 0
	}
	return d
}

// delay is the wait after failures failed attempts.
func (p limitPolicy) delay(failures int) time.Duration {
	n := failures - p.free
	if n < 0 {
		return 0
	}
	if n >= 30 || p.base<<n > p.max || p.base<<n <= 0 {
		return p.max
	}
	return p.base << n
}

// settle ends an attempt in flight: a failure is counted; a success clears
// the count when reset is set.
func (st *attemptState) settle(ok, reset bool, now time.Time) {
	if st.inflight > 0 {
		st.inflight--
	}
	if ok {
		if reset {
			st.failures = 0
		}
		return
	}
	if st.failures < math.MaxInt32 {
		st.failures++
	}
	st.last = now
}

// attemptTable is a map bounded by a least-recently-used list.
type attemptTable struct {
	max   int
	items map[string]*list.Element
	order *list.List // of *attemptEntry, most recently used first
}

type attemptEntry struct {
	key string
	st  attemptState
}

func newAttemptTable(max int) *attemptTable {
	return &attemptTable{max: max, items: map[string]*list.Element{}, order: list.New()}
}

// get returns the state of key, made or refreshed as needed: a count whose
// latest failure is older than the policy's forget (and that has nothing in
// flight) starts over. Adding to a full table forgets the least recently
// used entry.
func (t *attemptTable) get(key string, now time.Time, p limitPolicy) *attemptState {
	if el, ok := t.items[key]; ok {
		t.order.MoveToFront(el)
		st := &el.Value.(*attemptEntry).st
		if st.inflight == 0 && st.failures > 0 && now.Sub(st.last) > p.forget+p.delay(st.failures) {
			st.failures = 0
		}
		return st
	}
	if t.order.Len() >= t.max {
		oldest := t.order.Back()
		t.order.Remove(oldest)
		delete(t.items, oldest.Value.(*attemptEntry).key)
	}
	e := &attemptEntry{key: key}
	t.items[key] = t.order.PushFront(e)
	return &e.st
}

// peek returns the state of key without refreshing it; nil if absent.
func (t *attemptTable) peek(key string) *attemptState {
	if el, ok := t.items[key]; ok {
		return &el.Value.(*attemptEntry).st
	}
	return nil
}

func (t *attemptTable) remove(key string) {
	if el, ok := t.items[key]; ok {
		t.order.Remove(el)
		delete(t.items, key)
	}
}

func (t *attemptTable) len() int { return t.order.Len() }

// retryAfter is a wait in whole seconds, rounded up, for Retry-After and
// messages.
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
