package engine

import "math/bits"

// maxKeyBlocks bounds the identifiers an idKey takes: 4 + 4×15 bytes. A
// longer one is hashed by hashPrefix.sum.
const maxKeyBlocks = 15

// idKey is one identifier cut into MurmurHash3 blocks once for the many
// hashes of one answer ("group:" + id for each rollout and variant list).
// A prefix leaves 0 to 3 bytes pending, which the id's first bytes
// complete; for each of those four alignments the key holds the rest of
// the id's blocks already mixed, so that a hash is the prefix's block, a
// fixed number of rounds and the finish, with no branch that depends on
// the prefix (see sumKey): for a new user those branches, taken one way or
// the other from flag to flag, cost more than the arithmetic.
type idKey struct {
	n      uint32 // the id's length
	rounds int    // the most blocks after the first, over the alignments
	// For each alignment: first is the id's bytes that join the prefix's
	// pending ones, in place; full whether they make a whole block (else
	// they are all there is, and the hash's tail); more how many blocks
	// follow it, mixed; tail the 0 to 3 bytes left, mixed (0 for none,
	// which leaves the hash as it is).
	first [4]uint32
	full  [4]bool
	more  [4]int
	mixed [4][maxKeyBlocks]uint32
	tail  [4]uint32
}

// newIDKey cuts id into k, and reports false for an id longer than a key
// holds.
func newIDKey(id string, k *idKey) bool {
	if len(id) > 4+4*maxKeyBlocks {
		return false
	}
	*k = idKey{n: uint32(len(id))}
	for a := range 4 {
		i := min(4-a, len(id)) // the id's bytes in the first block
		for j := range i {
			k.first[a] |= uint32(id[j]) << (8 * (a + j))
		}
		if k.full[a] = a+len(id) >= 4; !k.full[a] {
			continue
		}
		m := 0
		for ; i+4 <= len(id); i += 4 {
			k.mixed[a][m] = mixBlock(uint32(id[i]) | uint32(id[i+1])<<8 | uint32(id[i+2])<<16 | uint32(id[i+3])<<24)
			m++
		}
		k.more[a] = m
		k.rounds = max(k.rounds, m)
		var tail uint32
		for j := 0; i < len(id); i, j = i+1, j+1 {
			tail |= uint32(id[i]) << (8 * j)
		}
		k.tail[a] = mixBlock(tail)
	}
	return true
}

func mixBlock(k uint32) uint32 {
	k *= murmurC1
	k = bits.RotateLeft32(k, 15)
	return k * murmurC2
}

// sumKey is p.sum(id) for the id cut into k. Every prefix runs the same
// number of rounds, the ones past its own blocks discarded.
func (p *hashPrefix) sumKey(k *idKey) uint32 {
	a := p.npend & 3
	h := p.h
	first := mixBlock(p.pending | k.first[a])
	next := bits.RotateLeft32(h^first, 13)*5 + 0xe6546b64
	tail := first // a short id: the prefix's bytes and its are the tail
	if k.full[a] {
		h, tail = next, k.tail[a]
	}
	mixed, more := &k.mixed[a], k.more[a]
	for j := 0; j < k.rounds; j++ {
		next := bits.RotateLeft32(h^mixed[j], 13)*5 + 0xe6546b64
		if j < more {
			h = next
		}
	}
	h ^= tail
	h ^= p.length + k.n
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
