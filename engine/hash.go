package engine

import "github.com/twmb/murmur3"

const (
	// rolloutSeed and variantSeed are the MurmurHash3 seeds every Unleash
	// SDK uses for rollouts and for variant buckets respectively.
	rolloutSeed = 0
	variantSeed = 86028157
)

// normalizedHash maps "group:id" to 1..modulus. The key is hashed as UTF-8
// bytes; the buffer stays on the stack for ordinary key lengths.
func normalizedHash(group, id string, modulus uint32, seed uint32) uint32 {
	if modulus == 0 {
		return 0
	}
	var buf [192]byte
	b := append(buf[:0], group...)
	b = append(b, ':')
	b = append(b, id...)
	return murmur3.SeedSum32(seed, b)%modulus + 1
}

// NormalizedHash exposes the bucketing function for tools and tests: the
// 1..modulus bucket of identifier within group for the given seed.
func NormalizedHash(group, identifier string, modulus, seed uint32) uint32 {
	return normalizedHash(group, identifier, modulus, seed)
}
