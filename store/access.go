package store

// AccessReader reads project access: which users and groups hold which
// project role in which project.
type AccessReader interface{}

// AccessWriter changes project access.
type AccessWriter interface{}
