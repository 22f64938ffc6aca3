// Package engine evaluates feature flags the way Unleash SDKs do.
//
// A client-API payload (clientapi.Features) is compiled once into an
// immutable Snapshot: regular expressions, semantic versions, dates, CIDR
// blocks, numbers and id lists are parsed, and segments are resolved, at
// compile time. Evaluating a flag against a Context then never parses a
// constraint value, never locks and, on the common paths, never allocates,
// so one Snapshot can serve any number of goroutines; a new payload means a
// new Snapshot, swapped in by the caller.
//
// The contract is the Unleash client specification 6.1.0; where reference
// SDKs disagree the package documents its choice next to the code. Two
// choices worth knowing up front:
//
//   - stickiness hashes the UTF-8 bytes of "groupId:identifier" with
//     MurmurHash3 x86 32-bit (as the Rust reference engine does); the
//     Node SDK hashes UTF-16 code units, which differs for non-ASCII ids;
//   - an unknown operator or strategy switches off just that strategy, and
//     the other strategies of the flag are still evaluated.
//
// The package does no I/O. Randomness, the clock, the host name and custom
// strategies are injected through Options. Each Result says what besides
// the snapshot and the context it depended on, so that callers can keep
// answers exactly: Volatile for a random draw or a custom strategy, and a
// Window of clock readings over which its DATE constraints hold.
//
// Evaluating every flag (EvaluateAll, EvaluateEach, EvaluateEnabled)
// resolves each context field once for all flags, answers flags that no
// context can change from a precomputed result and reuses a parent's
// result for its children; neither it nor Evaluate allocates.
package engine
