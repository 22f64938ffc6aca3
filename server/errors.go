package server

import (
	"net/http"

	"github.com/signalbox/signalbox/internal/apierr"
)

func notFoundPath(r *http.Request) error {
	return apierr.New(apierr.NotFound, "there is nothing at %s %s", r.Method, r.URL.Path)
}
