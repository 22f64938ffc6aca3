package httpx

import (
	"encoding/hex"
	"math/rand/v2"
	"net/http"
)

// RequestIDHeader carries the id of a request, in and out.
const RequestIDHeader = "X-Request-Id"

// maxRequestID bounds an id taken from a client or a load balancer.
const maxRequestID = 128

// RequestID gives every request an id and answers it in the X-Request-Id
// header: the one the client (or a load balancer in front) sent when it is
// sane, else a new random one. Later middleware finds it in the response
// header (see RequestIDOf), so logs about one request can be joined with the
// client's report and the balancer's logs. Put it first in the chain.
func RequestID() Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get(RequestIDHeader)
			if !saneRequestID(id) {
				id = newRequestID()
			}
			w.Header()[RequestIDHeader] = []string{id}
			next.ServeHTTP(w, r)
		})
	}
}

// RequestIDOf is the id RequestID gave the request answered through w, or
// "" when RequestID is not in the chain.
func RequestIDOf(w http.ResponseWriter) string {
	if v := w.Header()[RequestIDHeader]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// saneRequestID accepts ids that are safe to log and echo: short, and made
// of letters, digits and a few punctuation marks that common generators
// (UUIDs, AWS trace ids, base64) use.
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == ':', c == '/', c == '+', c == '=', c == '@':
		default:
			return false
		}
	}
	return true
}

// newRequestID returns 128 random bits as 32 hex digits. The ids need to
// be unique, not secret, so the fast per-goroutine generator is enough.
// The digits are written on the stack, so the string is the only
// allocation.
func newRequestID() string {
	var b [16]byte
	for i := 0; i < 16; i += 8 {
		v := rand.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	var digits [2 * len(b)]byte
	hex.Encode(digits[:], b[:])
	return string(digits[:])
}
