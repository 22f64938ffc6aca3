package clientapi

import "encoding/json"

// Features is the body of GET /api/client/features.
type Features struct {
	Version  int       `json:"version"`
	Features []Feature `json:"features"`
	Segments []Segment `json:"segments"`
	Query    *Query    `json:"query,omitempty"`
	Meta     *Meta     `json:"meta,omitempty"`
}

// Query echoes the filters a features answer was built for.
type Query struct {
	Tag                      [][]string `json:"tag,omitempty"`
	Project                  []string   `json:"project,omitempty"`
	NamePrefix               string     `json:"namePrefix,omitempty"`
	Environment              string     `json:"environment,omitempty"`
	InlineSegmentConstraints bool       `json:"inlineSegmentConstraints"`
}

// Meta carries revision information some servers add to the payload.
type Meta struct {
	Revision  int    `json:"revisionId,omitempty"`
	ETag      string `json:"etag,omitempty"`
	QueryHash string `json:"queryHash,omitempty"`
}

// Feature is one flag as SDKs see it.
type Feature struct {
	Name           string       `json:"name"`
	Type           string       `json:"type,omitempty"`
	Description    string       `json:"description,omitempty"`
	Project        string       `json:"project,omitempty"`
	Enabled        bool         `json:"enabled"`
	Stale          bool         `json:"stale"`
	ImpressionData bool         `json:"impressionData"`
	Strategies     []Strategy   `json:"strategies"`
	Variants       []Variant    `json:"variants"`
	Dependencies   []Dependency `json:"dependencies,omitempty"`
	// Segments appears at flag level in some delta payloads. Evaluation
	// gates on strategy-level segment references only.
	Segments []int `json:"segments,omitempty"`
}

// Strategy is one activation strategy of a flag in one environment.
type Strategy struct {
	ID          string       `json:"id,omitempty"`
	Name        string       `json:"name"`
	SortOrder   *int         `json:"sortOrder,omitempty"`
	Constraints []Constraint `json:"constraints"`
	Parameters  Parameters   `json:"parameters"`
	Segments    []int        `json:"segments,omitempty"`
	Variants    []Variant    `json:"variants,omitempty"`
}

// Constraint restricts a strategy to contexts whose field matches.
type Constraint struct {
	ContextName     string   `json:"contextName"`
	Operator        string   `json:"operator"`
	Values          []string `json:"values"`
	Value           string   `json:"value,omitempty"`
	CaseInsensitive bool     `json:"caseInsensitive"`
	Inverted        bool     `json:"inverted"`
}

// Variant is a flag-level or strategy-level variant. Overrides only occur on
// flag-level variants.
type Variant struct {
	Name       string     `json:"name"`
	Weight     int        `json:"weight"`
	WeightType string     `json:"weightType,omitempty"`
	Stickiness string     `json:"stickiness,omitempty"`
	Payload    *Payload   `json:"payload,omitempty"`
	Overrides  []Override `json:"overrides,omitempty"`
}

// Payload is the data attached to a variant. Value is always a string, also
// for the json, csv and number types.
type Payload struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Override pins a variant for contexts whose field is in Values.
type Override struct {
	ContextName string   `json:"contextName"`
	Values      []string `json:"values"`
}

// Dependency makes a flag depend on a parent flag. Enabled defaults to true
// when absent; Variants, when non-empty, lists the parent variants that
// satisfy the dependency.
type Dependency struct {
	Feature  string   `json:"feature"`
	Enabled  *bool    `json:"enabled,omitempty"`
	Variants []string `json:"variants,omitempty"`
}

// WantsEnabled reports whether the dependency requires the parent to be on.
func (d Dependency) WantsEnabled() bool { return d.Enabled == nil || *d.Enabled }

// Segment is a reusable, named list of constraints referenced by id.
type Segment struct {
	ID          int          `json:"id"`
	Name        string       `json:"name,omitempty"`
	Constraints []Constraint `json:"constraints"`
}

// MarshalJSON writes values as [] rather than null when there are none:
// SDKs iterate over the list without checking it.
func (c Constraint) MarshalJSON() ([]byte, error) {
	type plain Constraint
	if c.Values == nil {
		c.Values = []string{}
	}
	return json.Marshal(plain(c))
}
