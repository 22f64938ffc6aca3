package proxy

import (
	"io"
	"log/slog"
	"strings"
)

// NewLogger builds the default logger: one text line per record (the
// reference's SimpleLogger), or one JSON object per line when json is true,
// at the given level (debug, info, warn, error or fatal; anything else is
// warn). "fatal" shows only records above error.
func NewLogger(w io.Writer, json bool, level string) *slog.Logger {
	lv, ok := logLevels[strings.ToLower(level)]
	if !ok {
		lv = slog.LevelWarn
	}
	opts := &slog.HandlerOptions{Level: lv}
	if json {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
