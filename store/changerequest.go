package store

// ChangeRequestReader reads change requests and their configuration.
type ChangeRequestReader interface{}

// ChangeRequestWriter changes change requests and their configuration.
type ChangeRequestWriter interface{}
