package engine

import (
	"math/bits"
	"sync"
)

// hashBatch is every hash of a user's id that a plan's decisions read:
// the prefixes of its rollouts by userId and of its variant picks, kept
// apart from the checks (their states, pending bytes and lengths in three
// arrays) and grouped by how many bytes each prefix leaves pending. A new
// user's hashes are then one loop per group, in which the id's blocks are
// the same for every prefix and every hash runs the same rounds: no branch,
// and hash after hash in flight at once (Plan.Decide reads them by slot).
type hashBatch struct {
	groups                 [4]struct{ from, to int32 } // slots by alignment
	state, pending, length []uint32                    // by slot
}

// size is about how many bytes b holds.
func (b *hashBatch) size() int64 { return 12 * int64(cap(b.state)) }

// newHashBatch lays out the prefixes that each calls yield with, giving
// each its slot (set through the pointer yield passes with it). each must
// yield the same prefixes, in the same order, every time it is called.
func newHashBatch(each func(yield func(p *hashPrefix, slot *int32))) hashBatch {
	var b hashBatch
	var count [4]int32
	each(func(p *hashPrefix, _ *int32) { count[p.npend&3]++ })
	var next [4]int32
	n := int32(0)
	for g := range b.groups {
		b.groups[g].from, b.groups[g].to = n, n+count[g]
		next[g] = n
		n += count[g]
	}
	b.state, b.pending, b.length = make([]uint32, n), make([]uint32, n), make([]uint32, n)
	each(func(p *hashPrefix, slot *int32) {
		g := p.npend & 3
		s := next[g]
		next[g]++
		*slot = s
		b.state[s], b.pending[s], b.length[s] = p.h, p.pending, p.length
	})
	return b
}

// slots is how many hashes b sums.
func (b *hashBatch) slots() int { return len(b.state) }

// sum writes, for the id cut into k, each slot's hash (hashPrefix.sum)
// into out, which has a place for every slot.
func (b *hashBatch) sum(k *idKey, out []uint32) {
	for g := range b.groups {
		from, to := b.groups[g].from, b.groups[g].to
		state, pending, length := b.state[from:to], b.pending[from:to], b.length[from:to]
		res := out[from:to]
		first, tail, n := k.first[g], k.tail[g], k.n
		mixed := k.mixed[g][:k.more[g]]
		if !k.full[g] {
			// A short id: the prefix's bytes and its are the tail.
			for i := range res {
				res[i] = finish(state[i]^mixBlock(pending[i]|first), length[i]+n)
			}
			continue
		}
		length = length[:len(res)]
		pending = pending[:len(res)]
		state = state[:len(res)]
		for i := range res {
			h := bits.RotateLeft32(state[i]^mixBlock(pending[i]|first), 13)*5 + 0xe6546b64
			for _, m := range mixed {
				h = bits.RotateLeft32(h^m, 13)*5 + 0xe6546b64
			}
			res[i] = finish(h^tail, length[i]+n)
		}
	}
}

// hashesPool holds the arrays that plans' hashes are summed into.
var hashesPool = sync.Pool{New: func() any { return new([]uint32) }}
