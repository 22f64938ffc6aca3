package engine

import (
	"math"
	"testing"

	"github.com/twmb/murmur3"
)

// Reference values were computed independently over the UTF-8 bytes of the
// key (see the evaluation notes, §4.1); the raw hash is recovered by using
// the largest modulus, where raw%m+1 == raw+1.
func TestNormalizedHashVectors(t *testing.T) {
	tests := []struct {
		group, id string
		seed      uint32
		raw       uint32
		modulus   uint32
		bucket    uint32
	}{
		{"AB12A", "122", rolloutSeed, 1062108722, 100, 23},
		{"AB12A", "155", rolloutSeed, 3268232399, 100, 100},
		{"Feature.flexibleRollout.10", "174", rolloutSeed, 3067997709, 100, 10},
		{"Feature.Variants.D", "525", variantSeed, 4132969229, 100, 30},
		{"a", "5", variantSeed, 2623610406, 2, 1},
		{"Feature.strategy.multiple.variants", "5", variantSeed, 1683884559, 2, 2},
		// Non-ASCII keys hash as UTF-8 bytes (the Node SDK's UTF-16 based
		// hash would give 468385532 here).
		{"Feature.UTF-8.Hellø_Wørld", "1", rolloutSeed, 2340666836, 100, 37},
	}
	for _, tt := range tests {
		t.Run(tt.group+":"+tt.id, func(t *testing.T) {
			if got := normalizedHash(tt.group, tt.id, math.MaxUint32, tt.seed) - 1; got != tt.raw {
				t.Errorf("raw hash = %d, want %d", got, tt.raw)
			}
			if got := normalizedHash(tt.group, tt.id, tt.modulus, tt.seed); got != tt.bucket {
				t.Errorf("bucket of %d = %d, want %d", tt.modulus, got, tt.bucket)
			}
		})
	}
}

func TestNormalizedHashLongKeyAndZeroModulus(t *testing.T) {
	long := make([]byte, 1000)
	for i := range long {
		long[i] = 'x'
	}
	if got := normalizedHash(string(long), "id", 100, 0); got < 1 || got > 100 {
		t.Errorf("long key bucket %d outside 1..100", got)
	}
	if got := normalizedHash("g", "id", 0, 0); got != 0 {
		t.Errorf("zero modulus = %d, want 0", got)
	}
}

// TestHashPrefixMatchesMurmur3 checks the resumable hash against a
// reference implementation for every prefix and identifier length up to a
// few blocks, so that each split of the partial block is covered.
func TestHashPrefixMatchesMurmur3(t *testing.T) {
	const text = "Feature.flexibleRollout.ø-123456789:abcdefghijklmnop"
	for _, seed := range []uint32{rolloutSeed, variantSeed} {
		for g := 0; g <= 13; g++ {
			for n := 0; n <= 13; n++ {
				group, id := text[:g], text[20:20+n]
				want := murmur3.SeedSum32(seed, []byte(group+":"+id))
				p := newHashPrefix(group, seed)
				if got := p.sum(id); got != want {
					t.Fatalf("seed %d, %q:%q: %d, want %d", seed, group, id, got, want)
				}
			}
		}
	}
}

// TestHashBatchMatchesSum checks a batch's hashes of an identifier
// against the resumable hash, for prefixes of every alignment (shuffled
// among the groups' slots) and identifiers of every length a key takes,
// and that a key refuses the longer ones.
func TestHashBatchMatchesSum(t *testing.T) {
	const text = "Feature.flexibleRollout.ø-123456789:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var prefixes []hashPrefix
	for _, seed := range []uint32{rolloutSeed, variantSeed} {
		for g := 9; g >= 0; g-- {
			prefixes = append(prefixes, newHashPrefix(text[:g], seed), newHashPrefix(text[g:g+5], seed))
		}
	}
	slots := make([]int32, len(prefixes))
	b := newHashBatch(func(yield func(*hashPrefix, *int32)) {
		for i := range prefixes {
			yield(&prefixes[i], &slots[i])
		}
	})
	out := make([]uint32, b.slots())
	for n := 0; n <= 4+4*maxKeyBlocks+1; n++ {
		id := text[10 : 10+n]
		var k idKey
		if !newIDKey(id, &k) {
			if n <= 4+4*maxKeyBlocks {
				t.Fatalf("a key of %d bytes was refused", n)
			}
			continue
		}
		b.sum(&k, out)
		for i := range prefixes {
			if got, want := out[slots[i]], prefixes[i].sum(id); got != want {
				t.Fatalf("prefix %d (%d pending), id %q: %d, want %d", i, prefixes[i].npend, id, got, want)
			}
		}
	}
}
