// Package jsstrategy runs the JavaScript files that users of the Node
// @unleash/proxy already have: custom activation strategies
// (SERVICE_CUSTOM_STRATEGIES_FILE) and context enrichers
// (EXP_CUSTOM_ENRICHERS_FILE). The files are CommonJS modules and keep
// working unchanged.
//
// A strategies file exports an array of objects, class instances or
// subclasses of Strategy from 'unleash-client' (or '@unleash/proxy'), each
// with a string name and an isEnabled(parameters, context) method. An
// enrichers file exports an array of functions that take a context and
// return it (or a promise of it), mutated or replaced.
//
// The files run in goja, which is not goroutine-safe, so each loaded file
// is evaluated once per runtime in a small pool and every call borrows one
// runtime. Calls are interrupted after a timeout. A strategy that throws or
// times out evaluates false and logs a rate-limited warning; it never
// panics.
//
// What the files can use: ES2015+ language features, console (routed to
// the logger), and require of 'unleash-client' (and its subpaths),
// '@unleash/proxy' and files in the loaded file's directory (including its
// node_modules). Node built-ins (fs, http, process, timers, ...) are not
// available.
package jsstrategy
