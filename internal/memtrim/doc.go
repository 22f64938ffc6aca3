// Package memtrim gives back memory a long-running process touched only
// while it started.
//
// Every mode of the one signalbox binary runs the package initialisation
// of all the others: the JavaScript engine, SQLite, SAML and the rest each
// touch pages of the executable's code and read-only data once, and those
// pages then stay mapped, counted in the process's resident set, though a
// proxy never runs that code again. The kernel frees its own start-up
// code after boot for the same reason.
package memtrim
