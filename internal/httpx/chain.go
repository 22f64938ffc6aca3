// Package httpx is the HTTP plumbing shared by the server and the proxy:
// middleware composition, panic recovery, access logging, request metrics,
// JSON bodies in and out, and JSON answers for routing misses. Failed
// requests are answered with apierr's Error record everywhere.
package httpx

import "net/http"

// Middleware wraps a handler with behaviour before and after it.
type Middleware = func(http.Handler) http.Handler

// Chain wraps h in mws so that the first middleware is the outermost: a
// request passes through mws in the order they are listed, then reaches h.
func Chain(h http.Handler, mws ...Middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}
