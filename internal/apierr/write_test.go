package apierr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWriteStatusesAndLogs(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name      string
		ctx       context.Context
		err       error
		status    int
		errorLine bool
	}{
		{"validation", context.Background(), Invalid("name", "too long"), 400, false},
		{"internal", context.Background(), errors.New("disk on fire"), 500, true},
		{"client went away", cancelled, fmt.Errorf("listing flags: %w", context.Canceled), StatusClientClosedRequest, false},
		// A cancellation the request did not cause (its context is alive)
		// is a real failure of ours.
		{"cancelled elsewhere", context.Background(), context.Canceled, 500, true},
		{"a real error after the client left", cancelled, errors.New("constraint violated"), 500, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			r := httptest.NewRequest(http.MethodGet, "/api/admin/features", nil).WithContext(tc.ctx)
			w := httptest.NewRecorder()
			Write(w, r, log, tc.err)
			if w.Code != tc.status {
				t.Errorf("status %d, want %d", w.Code, tc.status)
			}
			if got := strings.Contains(logs.String(), "level=ERROR"); got != tc.errorLine {
				t.Errorf("error line logged: %v, want %v\n%s", got, tc.errorLine, logs.String())
			}
		})
	}
}
