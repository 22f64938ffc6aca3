// Package proxy is the client-side evaluation proxy: a drop-in replacement
// for the Node @unleash/proxy 1.4.x. It polls an Unleash-compatible client
// API for the flag configuration, keeps it as an immutable engine.Snapshot
// swapped atomically, and answers browser and mobile SDKs under
// <proxyBasePath>/proxy with evaluated results only: no strategy,
// constraint, segment or parameter ever leaves the process, and by default
// neither does the name of a flag that is off for the caller.
//
// Embedding:
//
//	cfg := proxy.Config{ServiceURL: "http://unleash:4242/api", ServiceAPIToken: tok, ClientKeys: keys}
//	p, err := proxy.New(cfg)
//	go p.Run(ctx) // polls upstream, sends metrics; flushes them when ctx ends
//	http.ListenAndServe(":3000", p.Handler())
//
// Every path answers 503 until the proxy holds a configuration, which comes
// from the first good upstream answer, from the backup that the storage
// provider kept from an earlier run, or from the bootstrap URL. Upstream
// answers replace a bootstrap, which replaces a backup; never the reverse.
//
// The backup is keyed by the app name and a hash of the upstream URL (with
// its filters) and the token (BackupKey), so a proxy never serves the
// backup of another upstream, token or filter. When the upstream refuses
// the token (401 or 403), the proxy does not serve a backup or bootstrap:
// it is not ready, and its 503 answers and an error log line say that the
// token is refused. A configuration that the upstream delivered earlier in
// the same run stays in use, as SDKs keep theirs, with one error line; the
// proxy keeps polling and recovers when the token is accepted again.
//
// # Choices where the reference leaves room
//
//   - Metrics: like the reference, only evaluations through POST /proxy
//     with a toggles list are counted (unknown names as "no"), plus
//     whatever SDKs post to /proxy/client/metrics. GET /proxy, POST
//     without a list and /proxy/all are not counted: the browser SDK counts
//     the flags it reads and posts them, so counting those too would count
//     twice. End-user context never goes upstream.
//   - Routing follows Express: paths match case-insensitively and with an
//     optional trailing slash; a known path with another method is a 404.
//     /proxy/all checks readiness, then the key (401), then whether it is
//     enabled (501).
//   - A weak ETag W/"<length>-<hash>" is sent with every JSON answer: for
//     a toggles answer the hash is of the evaluation results, keyed per
//     configuration (see answer/pieces.go), otherwise two CRC-32s of the
//     body. If-None-Match yields 304 on GET and HEAD only, as Express's
//     freshness check does. A new configuration changes every answer's tag.
//   - Answers are not compressed, so the Vary: Accept-Encoding header the
//     reference sends is kept only for caches' sake.
//   - Context building: the query's first value of a repeated parameter
//     wins, a JSON body's last; explicit properties win over unknown
//     top-level members; empty top-level fields are dropped. Defaults are
//     filled in (remoteAddress from the client IP, appName, environment
//     "default", a random sessionId when evaluating every flag), then the
//     enrichers run, then a fixed environment is applied.
//   - SDK registrations posted to /proxy/client/register are validated and
//     forwarded upstream with the next metrics upload (best effort).
package proxy
