package jsstrategy

import (
	"strings"
	"testing"
	"time"
)

func TestLoadErrors(t *testing.T) {
	defer func(d time.Duration) { loadTimeout = d }(loadTimeout)
	loadTimeout = time.Second
	tests := []struct {
		file string
		// want are substrings of the error; the file name is always checked.
		want     []string
		enricher bool
	}{
		{file: "missing.js", want: []string{"no such file"}},
		{file: "", want: []string{"not a readable file"}}, // the directory itself
		{file: "bad_syntax.js", want: []string{"SyntaxError", "bad_syntax.js: Line 1:"}},
		{file: "bad_throws.js", want: []string{"Error: top-level boom"}},
		{file: "bad_not_array.js", want: []string{"module.exports must be an array of strategies, got Object"}},
		{file: "empty.js", want: []string{"must be an array of strategies, got Object"}},
		{file: "bad_no_name.js", want: []string{"strategy 1: name must be a non-empty string"}},
		{file: "bad_is_enabled.js", want: []string{`strategy 0 ("x"): isEnabled is not a function`}},
		{file: "bad_builtin.js", want: []string{`Cannot require "fs": Node built-in modules are not available`}},
		{file: "bad_npm.js", want: []string{`Cannot find module "left-pad": only "unleash-client", "@unleash/proxy" and files in the directory of`}},
		{file: "nested/escape.js", want: []string{`Cannot find module "../lib/util"`}},
		{file: "bad_loop.js", want: []string{"timed out after 1s: interrupted at"}},
		{file: "bad_enricher.js", want: []string{"enricher 1 is number, not a function"}, enricher: true},
		{file: "strategies_class.js", want: []string{"enricher 0 is Object, not a function"}, enricher: true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := "testdata/" + tt.file
			var err error
			if tt.enricher {
				_, err = LoadEnrichers(path, Options{PoolSize: 2, Timeout: slack})
			} else {
				_, err = LoadStrategies(path, Options{PoolSize: 2, Timeout: slack})
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, want := range append(tt.want, "jsstrategy: "+path+": ") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}
