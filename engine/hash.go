package engine

import "math/bits"

const (
	// rolloutSeed and variantSeed are the MurmurHash3 seeds every Unleash
	// SDK uses for rollouts and for variant buckets respectively.
	rolloutSeed = 0
	variantSeed = 86028157
)

// normalizedHash maps "group:id" to 1..modulus, hashing the UTF-8 bytes of
// the key with MurmurHash3 x86 32-bit.
func normalizedHash(group, id string, modulus uint32, seed uint32) uint32 {
	p := newHashPrefix(group, seed)
	return p.bucket(id, modulus)
}

// NormalizedHash exposes the bucketing function for tools and tests: the
// 1..modulus bucket of identifier within group for the given seed.
func NormalizedHash(group, identifier string, modulus, seed uint32) uint32 {
	return normalizedHash(group, identifier, modulus, seed)
}

// hashPrefix is MurmurHash3 x86 32-bit part way through "group:": the
// state after every whole 4-byte block of the prefix, and the 0 to 3 bytes
// left over. A strategy or variant list hashes its group once, at compile
// time; evaluation then hashes only the identifier.
type hashPrefix struct {
	h       uint32
	pending uint32 // the left-over bytes, little-endian
	length  uint32 // bytes hashed so far, pending included
	npend   uint8  // how many bytes are pending, 0 to 3
}

func newHashPrefix(group string, seed uint32) hashPrefix {
	p := hashPrefix{h: seed}
	for i := 0; i < len(group); i++ {
		p.add(group[i])
	}
	p.add(':')
	return p
}

func (p *hashPrefix) add(b byte) {
	p.pending |= uint32(b) << (8 * p.npend)
	p.npend++
	p.length++
	if p.npend == 4 {
		p.h = murmurRound(p.h, p.pending)
		p.pending, p.npend = 0, 0
	}
}

// bucket is the 1..modulus bucket of id (0 for a zero modulus).
func (p *hashPrefix) bucket(id string, modulus uint32) uint32 {
	if modulus == 0 {
		return 0
	}
	return p.sum(id)%modulus + 1
}

// sum finishes the hash of "group:" + id. The prefix's pending bytes and
// the id's are joined in one 64-bit word: every 4 bytes of the id then
// complete one block, whatever the prefix left over, with no byte loop
// but for the id's last 0 to 3 bytes.
func (p *hashPrefix) sum(id string) uint32 {
	h, k, n := p.h, uint64(p.pending), uint(p.npend) // n bytes pending in k, n < 4
	i := 0
	for ; i+4 <= len(id); i += 4 {
		k |= uint64(uint32(id[i])|uint32(id[i+1])<<8|uint32(id[i+2])<<16|uint32(id[i+3])<<24) << (8 * n)
		h = murmurRound(h, uint32(k))
		k >>= 32
	}
	for ; i < len(id); i++ {
		k |= uint64(id[i]) << (8 * n)
		n++
	}
	if n >= 4 {
		h = murmurRound(h, uint32(k))
		k >>= 32
		n -= 4
	}
	return murmurFinish(h, uint32(k), n, p.length+uint32(len(id)))
}

const (
	murmurC1 = 0xcc9e2d51
	murmurC2 = 0x1b873593
)

func murmurRound(h, k uint32) uint32 {
	h ^= mixBlock(k)
	h = bits.RotateLeft32(h, 13)
	return h*5 + 0xe6546b64
}

// mixBlock is a 4-byte block as MurmurHash3 mixes it into the hash.
func mixBlock(k uint32) uint32 {
	k *= murmurC1
	k = bits.RotateLeft32(k, 15)
	return k * murmurC2
}

// murmurFinish mixes in the n (0 to 3) tail bytes k and the total length.
func murmurFinish(h, k uint32, n uint, length uint32) uint32 {
	if n > 0 {
		h ^= mixBlock(k)
	}
	return finish(h, length)
}

// finish is MurmurHash3's last mixing, the tail already in h.
func finish(h, length uint32) uint32 {
	h ^= length
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}
