package clientip

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     string // String() of the result
		trusts   []string
		distrust []string
		wantErr  string // substring of the error; "" for success
	}{
		{name: "empty", in: "", want: "false", distrust: []string{"127.0.0.1"}},
		{name: "false", in: " FALSE ", want: "false", distrust: []string{"127.0.0.1"}},
		{name: "true", in: "True", want: "true", trusts: []string{"127.0.0.1", "8.8.8.8", "::1"}},
		{name: "single ip", in: "10.0.0.1", want: "10.0.0.1", trusts: []string{"10.0.0.1"}, distrust: []string{"10.0.0.2"}},
		{name: "cidr", in: "10.0.0.0/8", want: "10.0.0.0/8", trusts: []string{"10.255.0.1"}, distrust: []string{"11.0.0.1"}},
		{name: "unmasked cidr", in: "10.1.2.3/8", trusts: []string{"10.9.9.9"}},
		{name: "list with spaces", in: " 10.0.0.1 , 192.168.0.0/16,::1 ", want: "10.0.0.1,192.168.0.0/16,::1",
			trusts: []string{"10.0.0.1", "192.168.4.4", "::1"}, distrust: []string{"10.0.0.2", "::2"}},
		{name: "loopback", in: "loopback", trusts: []string{"127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"}, distrust: []string{"10.0.0.1"}},
		{name: "linklocal", in: "LinkLocal", trusts: []string{"169.254.1.1", "fe80::1"}, distrust: []string{"127.0.0.1"}},
		{name: "uniquelocal", in: "uniquelocal", trusts: []string{"10.1.1.1", "172.31.0.1", "192.168.1.1", "fd00::1"},
			distrust: []string{"172.32.0.1", "8.8.8.8"}},
		{name: "names and ips", in: "loopback, 203.0.113.7", trusts: []string{"127.0.0.1", "203.0.113.7"}, distrust: []string{"203.0.113.8"}},
		{name: "ipv6 cidr", in: "2001:db8::/32", trusts: []string{"2001:db8::1"}, distrust: []string{"2001:db9::1", "10.0.0.1"}},
		{name: "netmask", in: "10.0.0.0/255.0.0.0", trusts: []string{"10.1.1.1"}, distrust: []string{"11.1.1.1"}},
		{name: "mapped prefix", in: "::ffff:10.0.0.0/104", trusts: []string{"10.2.3.4", "::ffff:10.2.3.4"}, distrust: []string{"11.0.0.1"}},
		{name: "mapped addr", in: "::ffff:10.0.0.1", trusts: []string{"10.0.0.1"}},
		{name: "zone dropped", in: "fe80::1%eth0", trusts: []string{"fe80::1", "fe80::1%eth1"}},
		{name: "zero prefix", in: "0.0.0.0/0", trusts: []string{"1.2.3.4"}, distrust: []string{"::1"}},
		{name: "garbage", in: "10.0.0.1, proxy.local", wantErr: `"proxy.local"`},
		{name: "empty entry", in: "10.0.0.1,,10.0.0.2", wantErr: "empty entry"},
		{name: "trailing comma", in: "10.0.0.1,", wantErr: "empty entry"},
		{name: "true in list", in: "true,10.0.0.1", wantErr: `"true"`},
		{name: "long prefix", in: "10.0.0.0/33", wantErr: `"10.0.0.0/33"`},
		{name: "bad prefix", in: "10.0.0.0/x", wantErr: "bad prefix length"},
		{name: "empty prefix", in: "10.0.0.0/", wantErr: "bad prefix length"},
		{name: "negative prefix", in: "10.0.0.0/-1", wantErr: "bad prefix length"},
		{name: "holey netmask", in: "10.0.0.0/255.0.255.0", wantErr: "not contiguous"},
		{name: "v6 netmask", in: "::1/255.0.0.0", wantErr: "needs an IPv4"},
		{name: "number", in: "1", wantErr: `"1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) error = %v, want one containing %s", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if tt.want != "" && got.String() != tt.want {
				t.Errorf("String() = %q, want %q", got.String(), tt.want)
			}
			for _, s := range tt.trusts {
				if !got.Trusts(netip.MustParseAddr(s)) {
					t.Errorf("Parse(%q) does not trust %s", tt.in, s)
				}
			}
			for _, s := range tt.distrust {
				if got.Trusts(netip.MustParseAddr(s)) {
					t.Errorf("Parse(%q) trusts %s", tt.in, s)
				}
			}
		})
	}
}

func TestTextRoundTrip(t *testing.T) {
	for _, in := range []string{"false", "true", "loopback,10.0.0.0/8", "::1"} {
		var tr Trust
		if err := tr.UnmarshalText([]byte(in)); err != nil {
			t.Fatalf("UnmarshalText(%q): %v", in, err)
		}
		b, _ := tr.MarshalText()
		if string(b) != in {
			t.Errorf("round trip of %q gave %q", in, b)
		}
	}
	var tr Trust
	if err := tr.UnmarshalText([]byte("nope")); err == nil {
		t.Error("UnmarshalText(nope) succeeded")
	}
}

func TestEnabled(t *testing.T) {
	if (Trust{}).Enabled() || MustParse("false").Enabled() {
		t.Error("zero Trust or false is enabled")
	}
	if !MustParse("true").Enabled() || !MustParse("loopback").Enabled() {
		t.Error("true or loopback is not enabled")
	}
}
