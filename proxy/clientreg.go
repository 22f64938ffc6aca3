package proxy

import (
	"context"
	"slices"
	"sync"

	"github.com/signalbox/signalbox/clientapi"
)

// maxPendingRegistrations bounds the SDK registrations held between two
// metrics uploads; callers can post any number of distinct instances.
const maxPendingRegistrations = 100

// registrations collects what SDKs post to /proxy/client/register, one per
// app and instance, and hands them upstream with the next metrics upload.
type registrations struct {
	mu      sync.Mutex
	pending map[string]clientapi.Registration
}

// add keeps reg unless the set is full or reg is oversized; a repeat
// replaces the earlier one. Each kept registration is small: names are
// bounded and at most maxNameLen strategies are kept.
func (r *registrations) add(reg clientapi.Registration) {
	if len(reg.AppName) > maxNameLen || len(reg.InstanceID) > maxNameLen || len(reg.SDKVersion) > maxNameLen {
		return
	}
	reg.Strategies = slices.DeleteFunc(slices.Clone(reg.Strategies[:min(len(reg.Strategies), maxNameLen)]),
		func(s string) bool { return len(s) > maxNameLen })
	key := reg.AppName + "\x00" + reg.InstanceID
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = map[string]clientapi.Registration{}
	}
	if _, ok := r.pending[key]; !ok && len(r.pending) >= maxPendingRegistrations {
		return
	}
	r.pending[key] = reg
}

func (r *registrations) take() []clientapi.Registration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]clientapi.Registration, 0, len(r.pending))
	for _, reg := range r.pending {
		out = append(out, reg)
	}
	r.pending = nil
	return out
}

// forwardRegistrations posts the collected registrations upstream. They
// are best effort, like the reference's own: a failure is logged at debug
// level and not retried.
func (p *Proxy) forwardRegistrations(ctx context.Context) {
	for _, reg := range p.regs.take() {
		if err := p.up.register(ctx, reg); err != nil {
			p.log.Debug("cannot forward an SDK registration", "app", reg.AppName, "err", err)
		}
	}
}
