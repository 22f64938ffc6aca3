package answer

import (
	"hash/crc32"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/signalbox/signalbox/clientapi"
	"github.com/signalbox/signalbox/engine"
)

// The toggles answer is built by appending bytes, not by encoding/json:
// at 5,000 flags the answer is about 277 KB and reflection-based encoding
// would cost more than evaluating the flags. The output is byte for byte
// what encoding/json produces for clientapi.Toggles with HTML escaping off
// (<, > and & are left as JSON.stringify leaves them).

// bufPool recycles answer buffers. Buffers that grew past maxPooledBuf are
// dropped, so one huge answer does not pin its memory forever.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

const maxPooledBuf = 4 << 20

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

func putBuf(b *[]byte) {
	if cap(*b) > maxPooledBuf {
		return
	}
	*b = (*b)[:0]
	bufPool.Put(b)
}

// resultsPool recycles the evaluation result slices of one request.
var resultsPool = sync.Pool{New: func() any { r := make([]engine.Result, 0, 256); return &r }}

func getResults() *[]engine.Result { return resultsPool.Get().(*[]engine.Result) }

func putResults(r *[]engine.Result) {
	if cap(*r) > 1<<16 {
		return
	}
	clear(*r) // drop payload pointers into old snapshots
	*r = (*r)[:0]
	resultsPool.Put(r)
}

func appendPayload(b []byte, pl *clientapi.Payload) []byte {
	b = append(b, `,"payload":{"type":`...)
	b = appendString(b, pl.Type)
	b = append(b, `,"value":`...)
	b = appendString(b, pl.Value)
	return append(b, '}')
}

// appendToggle appends one clientapi.ToggleResult.
// Answers are written from a configuration's pieces (pieces.go); this is
// the general form, for results the pieces do not know.
func appendToggle(b []byte, r *engine.Result) []byte {
	b = append(b, `{"name":`...)
	b = appendString(b, r.Name)
	b = append(b, `,"enabled":`...)
	b = strconv.AppendBool(b, r.Enabled)
	// The variant's members are in the reference's order: name, payload,
	// enabled, feature_enabled, featureEnabled; name, enabled, payload,
	// feature_enabled, featureEnabled for a strategy's variant.
	b = append(b, `,"variant":{"name":`...)
	b = appendString(b, r.Variant.Name)
	if r.Variant.FromStrategy {
		b = append(b, `,"enabled":`...)
		b = strconv.AppendBool(b, r.Variant.Enabled)
		if pl := r.Variant.Payload; pl != nil {
			b = appendPayload(b, pl)
		}
	} else {
		if pl := r.Variant.Payload; pl != nil {
			b = appendPayload(b, pl)
		}
		b = append(b, `,"enabled":`...)
		b = strconv.AppendBool(b, r.Variant.Enabled)
	}
	if r.Variant.FeatureEnabled {
		b = append(b, `,"feature_enabled":true,"featureEnabled":true},"impressionData":`...)
	} else {
		b = append(b, `,"feature_enabled":false,"featureEnabled":false},"impressionData":`...)
	}
	b = strconv.AppendBool(b, r.ImpressionData)
	return append(b, '}')
}

// safeASCII marks the bytes that need no escaping inside a JSON string.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Control characters, quotes and
// backslashes are escaped; invalid UTF-8 becomes U+FFFD, and U+2028 and
// U+2029 are escaped so the answer is also valid JavaScript, both as
// encoding/json does. Runs of plain ASCII are skipped eight bytes at a
// time.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		for i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain8 reports whether the 8 bytes of s need no escaping: none is a
// control character, '"', '\\' or a non-ASCII byte. It tests all eight at
// once with the classic "has a byte less than n / equal to n" word tricks.
func plain8(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	v := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	ctl := (v - ones*0x20) & ^v
	quote := v ^ (ones * '"')
	quote = (quote - ones) & ^quote
	bslash := v ^ (ones * '\\')
	bslash = (bslash - ones) & ^bslash
	return (v|ctl|quote|bslash)&highs == 0
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// weakETag is W/"<length>-<hash>" over body, the shape Express sends,
// for answers that are not toggles lists of one configuration (those are
// tagged from their results, see tagger). Two
// hardware-accelerated CRC-32s (64 bits together) are used instead of a
// cryptographic hash: the tag only has to change when the answer does, and
// hashing 277 KB with SHA-1 would cost more than building it.
func weakETag(body []byte) string {
	var tmp [48]byte
	t := append(tmp[:0], `W/"`...)
	t = strconv.AppendUint(t, uint64(len(body)), 16)
	t = append(t, '-')
	t = appendHex32(t, crc32.Checksum(body, castagnoli))
	t = appendHex32(t, crc32.ChecksumIEEE(body))
	t = append(t, '"')
	return string(t)
}

func appendHex32(b []byte, v uint32) []byte {
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(v>>uint(shift))&0xf])
	}
	return b
}
