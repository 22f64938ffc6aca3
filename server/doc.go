// Package server is Signalbox's flag server over HTTP: the admin API under
// /api/admin (Unleash's paths, so existing tooling works), the client API
// that server SDKs and proxies poll, the frontend API for browser SDKs,
// authentication, and health and metrics endpoints.
//
// Handlers return errors; one adapter turns them into Unleash-style Error
// records through apierr. Every admin change and its audit event are
// written in one store transaction (see Server.change). The client API
// serves payloads built once per revision and token scope from memory.
package server
