// Package clientapi holds the JSON wire types of the Unleash-compatible client
// API: the feature configuration that server SDKs and proxies poll, the delta
// events, the evaluation results that browser SDKs read, and the metrics and
// registration bodies that SDKs post. The server, the proxy and the engine all
// speak these types, so they live apart from any of them and import only the
// standard library.
//
// Decoding is lenient the way real clients need: unknown fields are ignored,
// strategy parameters may arrive as numbers or booleans and are kept as
// strings, and null lists decode as empty.
package clientapi
