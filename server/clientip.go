package server

import (
	"net/http"
)

// clientIP is the address of the client that sent r: the socket peer, or,
// behind proxies named by Config.TrustProxy, the first untrusted address of
// the X-Forwarded-For chain. It is "" when the address is not known (an
// X-Forwarded-For entry that is not an address, or a Unix socket peer).
func (s *Server) clientIP(r *http.Request) string {
	return s.cfg.TrustProxy.ClientIP(r)
}
