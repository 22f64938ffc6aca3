package engine

import "strings"

// version is a SemVer 2.0.0 version whose pre-release part is kept as a
// substring of the input, so that parsing a context value allocates nothing.
// Build metadata is validated and then ignored, as it does not take part in
// precedence.
type version struct {
	major, minor, patch uint64
	pre                 string // "" when there is no pre-release
}

// maxSemverLen is the longest version string accepted: node-semver, which
// the Unleash SDKs and server use, refuses longer ones, so a SEMVER
// constraint on such a context value is never met there either.
const maxSemverLen = 256

// parseSemver parses strictly: MAJOR.MINOR.PATCH[-pre][+build], no leading
// "v", no leading zeros, no missing parts, at most maxSemverLen bytes.
// (node-semver would also take a "v" prefix; the client specification
// requires rejecting it.)
func parseSemver(s string) (version, bool) {
	var v version
	if len(s) > maxSemverLen {
		return v, false
	}
	core, build, hasBuild := strings.Cut(s, "+")
	if hasBuild && !validIdentifiers(build, false) {
		return v, false
	}
	core, pre, hasPre := strings.Cut(core, "-")
	if hasPre {
		if !validIdentifiers(pre, true) {
			return v, false
		}
		v.pre = pre
	}
	var ok bool
	var rest string
	if v.major, rest, ok = numericPart(core); !ok || !strings.HasPrefix(rest, ".") {
		return v, false
	}
	if v.minor, rest, ok = numericPart(rest[1:]); !ok || !strings.HasPrefix(rest, ".") {
		return v, false
	}
	if v.patch, rest, ok = numericPart(rest[1:]); !ok || rest != "" {
		return v, false
	}
	return v, true
}

// numericPart reads a numeric identifier (no leading zeros, fits uint64)
// from the start of s and returns the rest.
func numericPart(s string) (uint64, string, bool) {
	i := 0
	var n uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := uint64(s[i] - '0')
		if n > (1<<64-1-d)/10 {
			return 0, "", false
		}
		n = n*10 + d
		i++
	}
	if i == 0 || (i > 1 && s[0] == '0') {
		return 0, "", false
	}
	return n, s[i:], true
}

// validIdentifiers checks dot-separated identifiers of [0-9A-Za-z-], none
// empty; in a pre-release, numeric identifiers have no leading zeros.
func validIdentifiers(s string, pre bool) bool {
	for {
		id, rest, more := strings.Cut(s, ".")
		if id == "" {
			return false
		}
		numeric := true
		for i := 0; i < len(id); i++ {
			c := id[i]
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
				numeric = false
			default:
				return false
			}
		}
		if pre && numeric && len(id) > 1 && id[0] == '0' {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// compare returns -1, 0 or 1 by SemVer precedence.
func (v version) compare(o version) int {
	if c := cmpUint(v.major, o.major); c != 0 {
		return c
	}
	if c := cmpUint(v.minor, o.minor); c != 0 {
		return c
	}
	if c := cmpUint(v.patch, o.patch); c != 0 {
		return c
	}
	switch {
	case v.pre == o.pre:
		return 0
	case v.pre == "":
		return 1 // a release ranks above its pre-releases
	case o.pre == "":
		return -1
	}
	a, b := v.pre, o.pre
	for {
		x, restA, moreA := strings.Cut(a, ".")
		y, restB, moreB := strings.Cut(b, ".")
		if c := compareIdentifier(x, y); c != 0 {
			return c
		}
		switch {
		case !moreA && !moreB:
			return 0
		case !moreA:
			return -1 // fewer fields ranks lower
		case !moreB:
			return 1
		}
		a, b = restA, restB
	}
}

// compareIdentifier orders numeric identifiers numerically and below
// alphanumeric ones, which are ordered as ASCII.
func compareIdentifier(x, y string) int {
	nx, ny := isNumeric(x), isNumeric(y)
	switch {
	case nx && ny:
		if len(x) != len(y) { // no leading zeros, so longer is larger
			return cmpInt(len(x), len(y))
		}
		return strings.Compare(x, y)
	case nx:
		return -1
	case ny:
		return 1
	}
	return strings.Compare(x, y)
}

func isNumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func cmpUint(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int) int { return cmpUint(uint64(a), uint64(b)) }
