package pgtest

import (
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// Cluster is a throwaway server for a program rather than a test (the load
// benchmark runs the reference Unleash on one): started like the tests'
// (or TEST_DATABASE_URL's), stopped by Stop.
type Cluster struct{ s *server }

// StartCluster starts a server; the caller must Stop it.
func StartCluster() (*Cluster, error) {
	s, err := startServer()
	if err != nil {
		return nil, err
	}
	return &Cluster{s: s}, nil
}

// NewDatabase creates an empty database called name and returns its URL;
// it is dropped with the cluster (or by DROP on an existing server).
func (c *Cluster) NewDatabase(name string) (string, error) {
	if err := c.s.admin(fmt.Sprintf("CREATE DATABASE %s", pgx.Identifier{name}.Sanitize())); err != nil {
		return "", fmt.Errorf("pgtest: creating database: %w", err)
	}
	u, err := url.Parse(c.s.adminURL)
	if err != nil {
		return "", fmt.Errorf("pgtest: %s is not a URL: %w", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String(), nil
}

// Stop stops a server this package started; an existing one is left.
func (c *Cluster) Stop() { c.s.stop() }
