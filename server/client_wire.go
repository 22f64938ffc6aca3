package server

import (
	"encoding/json"

	"github.com/signalbox/signalbox/clientapi"
)

// wireFeature is a flag as the client and delta APIs send it: normalized,
// and without each strategy's id and sortOrder. Unleash strips both from
// these answers too (old Go SDKs break on strategy ids), and the ids are
// random UUIDs: at 500 flags they were two thirds of the gzip answer, as
// no compressor can shorten random text. The array's order already is the
// strategies' order. The decoded payload kept by the server keeps the ids,
// which the playground uses to tell strategies apart.
func wireFeature(f clientapi.Feature) clientapi.Feature {
	f = normalizeFeature(f)
	for i := range f.Strategies {
		f.Strategies[i].ID = ""
		f.Strategies[i].SortOrder = nil
	}
	return f
}

// encodeClientFeatures encodes a payload in its wire form, leaving p as
// it is.
func encodeClientFeatures(p *clientapi.Features) ([]byte, error) {
	wire := *p
	wire.Features = make([]clientapi.Feature, len(p.Features))
	for i, f := range p.Features {
		wire.Features[i] = wireFeature(f)
	}
	return json.Marshal(&wire)
}
