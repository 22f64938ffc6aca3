package proxy

import (
	"container/list"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// addrLimiter gives each client address a budget of its own for
// validating unknown tokens, taken before the node's shared budget: one
// address sending made-up tokens spends its own budget and then gets 429,
// leaving the shared budget to everyone else. It remembers at most max
// addresses, the least recently seen forgotten first, so a flood of
// addresses cannot grow the node's memory; an address forgotten and seen
// again starts with a full budget, which the shared budget still bounds.
type addrLimiter struct {
	mu    sync.Mutex
	rate  rate.Limit
	burst int
	max   int
	order *list.List // of *addrEntry, most recently seen first
	byKey map[netip.Addr]*list.Element
}

type addrEntry struct {
	addr netip.Addr
	lim  *rate.Limiter
}

func newAddrLimiter(perSecond float64, burst, max int) *addrLimiter {
	return &addrLimiter{rate: rate.Limit(perSecond), burst: burst, max: max, order: list.New(), byKey: map[netip.Addr]*list.Element{}}
}

// allow spends one validation of addr's budget at now; false when the
// budget is spent. The zero Addr (an address not known) is one more
// address.
func (a *addrLimiter) allow(addr netip.Addr, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if el, ok := a.byKey[addr]; ok {
		a.order.MoveToFront(el)
		return el.Value.(*addrEntry).lim.AllowN(now, 1)
	}
	if a.order.Len() >= a.max {
		old := a.order.Back()
		a.order.Remove(old)
		delete(a.byKey, old.Value.(*addrEntry).addr)
	}
	ent := &addrEntry{addr: addr, lim: rate.NewLimiter(a.rate, a.burst)}
	a.byKey[addr] = a.order.PushFront(ent)
	return ent.lim.AllowN(now, 1)
}

// len is the number of addresses remembered.
func (a *addrLimiter) len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.order.Len()
}
