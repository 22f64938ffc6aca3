package store

// GroupReader reads user groups.
type GroupReader interface{}

// GroupWriter changes user groups.
type GroupWriter interface{}
