package clientip

import (
	"net/http/httptest"
	"testing"
)

func TestClientIP(t *testing.T) {
	tests := []struct {
		name   string
		trust  string
		remote string
		xff    []string
		want   string
	}{
		{name: "off ignores xff", trust: "false", remote: "10.0.0.1:1234", xff: []string{"1.2.3.4"}, want: "10.0.0.1"},
		{name: "off v6 peer", trust: "false", remote: "[::1]:80", want: "::1"},
		{name: "off mapped peer", trust: "false", remote: "[::ffff:192.0.2.1]:80", want: "192.0.2.1"},
		{name: "off zoned peer", trust: "false", remote: "[fe80::1%eth0]:80", want: "fe80::1"},
		{name: "off unix socket", trust: "false", remote: "@", want: ""},
		{name: "peer not trusted", trust: "10.0.0.0/8", remote: "192.0.2.9:1", xff: []string{"1.2.3.4"}, want: "192.0.2.9"},
		{name: "peer trusted no xff", trust: "loopback", remote: "127.0.0.1:1", want: "127.0.0.1"},
		{name: "one hop", trust: "loopback", remote: "127.0.0.1:1", xff: []string{"203.0.113.5"}, want: "203.0.113.5"},
		{name: "spoofed left entry ignored", trust: "loopback", remote: "127.0.0.1:1",
			xff: []string{"6.6.6.6, 203.0.113.5"}, want: "203.0.113.5"},
		{name: "two trusted hops", trust: "loopback, 10.0.0.0/8", remote: "127.0.0.1:1",
			xff: []string{"6.6.6.6, 203.0.113.5, 10.1.1.1"}, want: "203.0.113.5"},
		{name: "all trusted gives leftmost", trust: "loopback, 10.0.0.0/8", remote: "127.0.0.1:1",
			xff: []string{"10.9.9.9, 10.1.1.1"}, want: "10.9.9.9"},
		{name: "true gives leftmost", trust: "true", remote: "192.0.2.1:1",
			xff: []string{"6.6.6.6, 203.0.113.5"}, want: "6.6.6.6"},
		{name: "multiple headers are one list", trust: "loopback, 10.0.0.0/8", remote: "127.0.0.1:1",
			xff: []string{"6.6.6.6, 203.0.113.5", "10.1.1.1"}, want: "203.0.113.5"},
		{name: "multiple headers true", trust: "true", remote: "127.0.0.1:1",
			xff: []string{"6.6.6.6", "203.0.113.5"}, want: "6.6.6.6"},
		{name: "spaces tabs and empties", trust: "true", remote: "127.0.0.1:1",
			xff: []string{" , \t203.0.113.5\t ,, 10.0.0.1 , "}, want: "203.0.113.5"},
		{name: "empty header", trust: "loopback", remote: "127.0.0.1:1", xff: []string{""}, want: "127.0.0.1"},
		{name: "ipv4 with port", trust: "loopback", remote: "127.0.0.1:1", xff: []string{"203.0.113.5:4711"}, want: "203.0.113.5"},
		{name: "ipv6 bare", trust: "loopback", remote: "[::1]:1", xff: []string{"2001:db8::1"}, want: "2001:db8::1"},
		{name: "ipv6 brackets", trust: "loopback", remote: "[::1]:1", xff: []string{"[2001:db8::1]"}, want: "2001:db8::1"},
		{name: "ipv6 brackets port", trust: "loopback", remote: "[::1]:1", xff: []string{"[2001:db8::1]:443"}, want: "2001:db8::1"},
		{name: "ipv6 zone", trust: "loopback", remote: "[::1]:1", xff: []string{"fe80::1%eth0"}, want: "fe80::1"},
		{name: "mapped entry matched as v4", trust: "loopback, 10.0.0.0/8", remote: "127.0.0.1:1",
			xff: []string{"203.0.113.5, ::ffff:10.1.1.1"}, want: "203.0.113.5"},
		{name: "garbage is the client", trust: "loopback", remote: "127.0.0.1:1",
			xff: []string{"203.0.113.5, unknown"}, want: ""},
		{name: "garbage left of client is ignored", trust: "loopback", remote: "127.0.0.1:1",
			xff: []string{"unknown, 203.0.113.5"}, want: "203.0.113.5"},
		{name: "garbage stops true", trust: "true", remote: "127.0.0.1:1",
			xff: []string{"6.6.6.6, garbage, 203.0.113.5"}, want: ""},
		{name: "bad port is garbage", trust: "loopback", remote: "127.0.0.1:1", xff: []string{"203.0.113.5:http"}, want: ""},
		{name: "unclosed bracket", trust: "loopback", remote: "127.0.0.1:1", xff: []string{"[2001:db8::1"}, want: ""},
		{name: "junk after bracket", trust: "loopback", remote: "127.0.0.1:1", xff: []string{"[2001:db8::1]x"}, want: ""},
		{name: "unix peer trusted nothing", trust: "true", remote: "@", xff: []string{"203.0.113.5"}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tt.remote
			for _, v := range tt.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := MustParse(tt.trust).ClientIP(r); got != tt.want {
				t.Errorf("ClientIP = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseHop(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" when not an address
	}{
		{"1.2.3.4", "1.2.3.4"},
		{" 1.2.3.4:80 ", "1.2.3.4"},
		{"1.2.3.4:", ""},
		{"1.2.3.4:123456", ""},
		{"::1", "::1"},
		{"[::1]", "::1"},
		{"[::1]:8080", "::1"},
		{"[::1]:", ""},
		{"[1.2.3.4]:80", "1.2.3.4"},
		{"::ffff:1.2.3.4", "1.2.3.4"},
		{"fe80::1%25eth0", "fe80::1"},
		{"", ""},
		{"[", ""},
		{"[]", ""},
		{"localhost:80", ""},
		{"1.2.3.4.5", ""},
	}
	for _, tt := range tests {
		a, ok := parseHop(tt.in)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("parseHop(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestAddrAllocs(t *testing.T) {
	tr := MustParse("loopback, 10.0.0.0/8")
	xff := []string{"6.6.6.6, [2001:db8::1]:443", "10.1.1.1:80"}
	n := testing.AllocsPerRun(100, func() {
		if !tr.Addr("127.0.0.1:5555", xff).IsValid() {
			t.Fatal("no address")
		}
	})
	if n != 0 {
		t.Errorf("Addr allocates %v times per call, want 0", n)
	}
}
