// Package clientip finds the address of the client behind a chain of
// reverse proxies, with the semantics of Express's "trust proxy" setting
// (which Unleash and its proxy use): the X-Forwarded-For chain is walked from
// the nearest hop outwards and every trusted hop is skipped; the first
// address that is not trusted is the client.
package clientip

import (
	"fmt"
	"net/netip"
	"strings"
)

// Trust says which proxies may speak for the client. The zero value trusts
// no proxy, so ClientIP reports the socket peer.
type Trust struct {
	all      bool
	prefixes []netip.Prefix
	text     string
}

// Named ranges accepted by Express's proxy-addr, so a TRUST_PROXY value
// copied from an Unleash deployment means the same thing here.
var named = map[string][]netip.Prefix{
	"loopback": {
		netip.MustParsePrefix("127.0.0.1/8"),
		netip.MustParsePrefix("::1/128"),
	},
	"linklocal": {
		netip.MustParsePrefix("169.254.0.0/16"),
		netip.MustParsePrefix("fe80::/10"),
	},
	"uniquelocal": {
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("172.16.0.0/12"),
		netip.MustParsePrefix("192.168.0.0/16"),
		netip.MustParsePrefix("fc00::/7"),
	},
}

// Parse reads a TRUST_PROXY value: "true" (trust every hop), "false" or ""
// (trust none), or a comma-separated list of IP addresses, CIDR prefixes,
// IPv4 address/netmask pairs and the names loopback, linklocal and
// uniquelocal. Case and surrounding spaces do not matter. An entry that is
// none of these is an error that names it.
func Parse(s string) (Trust, error) {
	v := strings.TrimSpace(s)
	switch strings.ToLower(v) {
	case "", "false":
		return Trust{}, nil
	case "true":
		return Trust{all: true, text: "true"}, nil
	}
	var t Trust
	names := make([]string, 0, strings.Count(v, ",")+1)
	for entry := range strings.SplitSeq(v, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			return Trust{}, fmt.Errorf("trust proxy %q: empty entry in list", s)
		}
		ps, err := parseEntry(entry)
		if err != nil {
			return Trust{}, fmt.Errorf("trust proxy: %w", err)
		}
		t.prefixes = append(t.prefixes, ps...)
		names = append(names, entry)
	}
	t.text = strings.Join(names, ",")
	return t, nil
}

// parseEntry turns one list entry into the prefixes it stands for.
func parseEntry(entry string) ([]netip.Prefix, error) {
	if ps, ok := named[strings.ToLower(entry)]; ok {
		return ps, nil
	}
	addrPart, bitsPart, hasSlash := strings.Cut(entry, "/")
	a, err := netip.ParseAddr(addrPart)
	if err != nil {
		return nil, fmt.Errorf("entry %q is not an IP address, CIDR prefix or range name", entry)
	}
	// A zone names an interface on the machine that wrote the address and
	// means nothing when matching another host's address.
	a = a.WithZone("")
	bits := a.BitLen()
	if hasSlash {
		bits, err = parseBits(a, bitsPart)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", entry, err)
		}
	}
	// Addresses are compared unmapped (see normalize), so an IPv4-mapped
	// IPv6 prefix must become the IPv4 prefix it covers, as proxy-addr does.
	if a.Is4In6() && bits >= 96 {
		a, bits = a.Unmap(), bits-96
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return nil, fmt.Errorf("entry %q: %w", entry, err)
	}
	return []netip.Prefix{p}, nil
}

// parseBits reads the part after "/": a prefix length, or for IPv4 a
// dotted netmask such as 255.255.0.0, which proxy-addr also accepts.
func parseBits(a netip.Addr, s string) (int, error) {
	if m, err := netip.ParseAddr(s); err == nil {
		if !a.Is4() || !m.Is4() {
			return 0, fmt.Errorf("netmask %q needs an IPv4 address", s)
		}
		b := m.As4()
		n := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
		ones := 0
		for n&(1<<31) != 0 {
			ones++
			n <<= 1
		}
		if n != 0 {
			return 0, fmt.Errorf("netmask %q is not contiguous", s)
		}
		return ones, nil
	}
	if s == "" || len(s) > 3 {
		return 0, fmt.Errorf("bad prefix length %q", s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("bad prefix length %q", s)
		}
		n = n*10 + int(s[i]-'0')
	}
	if n > a.BitLen() {
		return 0, fmt.Errorf("prefix length %d is too long for %s", n, a)
	}
	return n, nil
}

// MustParse is Parse for constants in tests and defaults; it panics on error.
func MustParse(s string) Trust {
	t, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

// UnmarshalText lets config loaders read a Trust from an environment value.
func (t *Trust) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// MarshalText writes the value Parse would read back.
func (t Trust) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// String returns the option in the form Parse accepts.
func (t Trust) String() string {
	if t.text == "" {
		return "false"
	}
	return t.text
}

// Enabled reports whether any proxy is trusted, that is whether
// X-Forwarded-For is read at all.
func (t Trust) Enabled() bool { return t.all || len(t.prefixes) > 0 }

// Trusts reports whether a is a trusted proxy address.
func (t Trust) Trusts(a netip.Addr) bool {
	if t.all {
		return true
	}
	a = normalize(a)
	for _, p := range t.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
