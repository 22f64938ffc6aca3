package e2e

import (
	"fmt"
	"math/rand/v2"
)

// wireContext is a context as SDKs and proxies take it in JSON.
type wireContext struct {
	UserID     string            `json:"userId,omitempty"`
	SessionID  string            `json:"sessionId"`
	Properties map[string]string `json:"properties,omitempty"`
}

// contexts generates n varied contexts from a fixed seed. Every context
// carries a sessionId, so that no stickiness falls back to randomness unless
// a flag asks for a field that is missing.
func contexts(n int, seed uint64) []wireContext {
	r := rand.New(rand.NewPCG(seed, 7))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	out := make([]wireContext, n)
	for i := range out {
		c := wireContext{SessionID: fmt.Sprint("s", r.IntN(100000)), Properties: map[string]string{}}
		if r.IntN(10) > 0 {
			c.UserID = fmt.Sprint("u", r.IntN(60))
		}
		c.Properties["email"] = pick("admin@example.com", "Admin@Example.com", "ops-team@example.com", "blocked-admin@example.com", "user@other.org")
		c.Properties["age"] = pick("17", "18", "30", "40.5", "41", "64", "65", "abc")
		c.Properties["country"] = pick("no", "se", "dk", "NO")
		c.Properties["plan"] = pick("free", "pro", "team")
		c.Properties["appVersion"] = pick("1.0.0", "2.0.0", "2.1.0", "2.9.9", "3.0.0-beta.1", "3.0.0-rc.1", "3.1.0", "garbage")
		c.Properties["clientIp"] = pick("192.168.4.2", "10.0.0.1", "10.0.0.2", "8.8.8.8")
		if r.IntN(2) == 0 {
			c.Properties["tenant"] = fmt.Sprint("t", r.IntN(20))
		}
		out[i] = c
	}
	return out
}
