package engine

// maxUserIndex bounds the entries of a plan's user index (one per id and
// user list holding it): past it, each list is read for each user instead,
// so that a plan of long lists does not hold a second copy of them.
const maxUserIndex = 4096

// userIndex finds, for a userId, the plan's userWithId checks whose lists
// hold it. A new user is then looked up once per answer instead of once
// per list: at thousands of flags, each list scattered in memory, the
// lookups were a tenth of an answer from a template.
type userIndex map[string][]int32 // ascending check indices

// indexUsers builds the index of p's user lists, or nil when it would
// pass maxUserIndex.
func (p *Plan) indexUsers() userIndex {
	idx, entries := userIndex{}, 0
	for i := range p.checks {
		c := &p.checks[i]
		if c.kind != checkUserIn {
			continue
		}
		entries += c.ids.len()
		if entries > maxUserIndex {
			return nil
		}
		for id := range c.ids.all() {
			idx[id] = append(idx[id], int32(i))
		}
	}
	return idx
}

// size is about how many bytes idx holds.
func (idx userIndex) size() int64 {
	var n int64
	for id, checks := range idx {
		n += 48 + int64(len(id)) + 4*int64(cap(checks))
	}
	return n
}

// userHits walks, in check order, the checks whose lists hold one user.
type userHits struct {
	checks []int32
	next   int
}

// has reports whether check i's list holds the user; checks are asked in
// ascending order.
func (h *userHits) has(i int32) bool {
	for h.next < len(h.checks) && h.checks[h.next] < i {
		h.next++
	}
	return h.next < len(h.checks) && h.checks[h.next] == i
}
