package engine

// maxKeyBlocks bounds the identifiers an idKey takes: 4 + 4×15 bytes.
// For a longer one Plan.Decide declines, and each hash is summed alone.
const maxKeyBlocks = 15

// idKey is one identifier cut into MurmurHash3 blocks once for the many
// hashes of one answer ("group:" + id for each rollout and variant list).
// A prefix leaves 0 to 3 bytes pending, which the id's first bytes
// complete; for each of those four alignments the key holds the rest of
// the id's blocks already mixed, so that every prefix of one alignment
// hashes the same blocks in the same rounds (see hashBatch.sum).
type idKey struct {
	n uint32 // the id's length
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
		var tail uint32
		for j := 0; i < len(id); i, j = i+1, j+1 {
			tail |= uint32(id[i]) << (8 * j)
		}
		k.tail[a] = mixBlock(tail)
	}
	return true
}
