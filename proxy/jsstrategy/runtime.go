package jsstrategy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/require"
)

// shimNames are the modules files may require without having them on disk.
var shimNames = []string{"unleash-client", "@unleash/proxy"}

// shimProgram is the Strategy base class of unleash-client 6, reduced to
// what custom strategies use: the name, and an isEnabled that returns the
// constructor's returnValue. Compiled once; a Program can be shared by any
// number of runtimes.
var shimProgram = goja.MustCompile("unleash-client", `(function (module) {
	'use strict';
	class Strategy {
		constructor(name, returnValue = false) {
			this.name = name || 'unknown';
			this.returnValue = returnValue;
		}
		isEnabled(parameters, context) {
			return this.returnValue;
		}
	}
	module.exports = { Strategy: Strategy };
})`, false)

// loadShim is the module loader of 'unleash-client'.
func loadShim(vm *goja.Runtime, module *goja.Object) {
	fn, err := vm.RunProgram(shimProgram)
	if err == nil {
		call, _ := goja.AssertFunction(fn)
		_, err = call(goja.Undefined(), module)
	}
	if err != nil {
		panic(vm.NewGoError(err))
	}
}

// loadProxyShim makes '@unleash/proxy' re-export unleash-client, as the
// real package does, so both names give the same Strategy class.
func loadProxyShim(vm *goja.Runtime, module *goja.Object) {
	module.Set("exports", require.Require(vm, shimNames[0]))
}

// newRegistry returns a require registry that loads shims natively and
// everything else only from dir (the loaded file's directory), so a
// strategy file cannot read files elsewhere on the host. Compiled modules
// are cached in the registry and shared by all runtimes of a pool.
func newRegistry(dir string) *require.Registry {
	reg := require.NewRegistry(require.WithLoader(func(p string) ([]byte, error) {
		rel, err := filepath.Rel(dir, p)
		if err != nil || !filepath.IsLocal(rel) {
			// "Does not exist" lets the resolver keep searching, and ends as
			// "Cannot find module" when nothing inside dir matches.
			return nil, require.ModuleFileDoesNotExistError
		}
		return require.DefaultSourceLoader(p)
	}))
	reg.RegisterNativeModule(shimNames[0], loadShim)
	reg.RegisterNativeModule(shimNames[1], loadProxyShim)
	return reg
}

// newRuntime returns a runtime with require and console installed.
// name is the file as the user gave it, for messages.
func newRuntime(reg *require.Registry, name string, log *slog.Logger) (*goja.Runtime, *require.RequireModule) {
	vm := goja.New()
	// Like Node's RangeError on deep recursion, instead of growing the stack
	// until the timeout.
	vm.SetMaxCallStackSize(10000)
	req := reg.Enable(vm)
	// Replace the registry's require to give clear errors. Calling
	// req.Require from this Go function keeps relative paths working: the
	// resolver reads the calling module from the JS stack, which is the
	// same as for the registry's own require.
	vm.Set("require", func(call goja.FunctionCall) goja.Value {
		mod := call.Argument(0).String()
		if isNodeBuiltin(mod) {
			panic(jsError(vm, fmt.Sprintf("Cannot require %q: Node built-in modules are not available to %s", mod, name)))
		}
		if strings.HasPrefix(mod, shimNames[0]+"/") {
			// Deep imports such as 'unleash-client/lib/strategy/strategy'
			// also export Strategy by name.
			mod = shimNames[0]
		}
		v, err := req.Require(mod)
		if err == nil {
			return v
		}
		// Pass the module's own exception and our timeout through as they are.
		var ex *goja.Exception
		if errors.As(err, &ex) {
			panic(ex)
		}
		var intr *goja.InterruptedError
		if errors.As(err, &intr) {
			panic(intr)
		}
		if errors.Is(err, require.InvalidModuleError) {
			panic(jsError(vm, fmt.Sprintf("Cannot find module %q: only %q, %q and files in the directory of %s can be required",
				mod, shimNames[0], shimNames[1], name)))
		}
		panic(jsError(vm, fmt.Sprintf("Cannot load module %q: %v", mod, err)))
	})
	installConsole(vm, log.With("file", name))
	return vm, req
}

// jsError returns a JS Error object, so that scripts can catch it and its
// message reads as in Node.
func jsError(vm *goja.Runtime, msg string) *goja.Object {
	o, err := vm.New(vm.Get("Error"), vm.ToValue(msg))
	if err != nil {
		return vm.NewGoError(errors.New(msg))
	}
	return o
}

// installConsole routes console.* to the logger: strategies written for
// Node often log, and a missing console would make them throw.
func installConsole(vm *goja.Runtime, log *slog.Logger) {
	c := vm.NewObject()
	for name, level := range map[string]slog.Level{
		"log": slog.LevelInfo, "info": slog.LevelInfo, "debug": slog.LevelDebug,
		"warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		c.Set(name, func(call goja.FunctionCall) goja.Value {
			parts := make([]string, len(call.Arguments))
			for i, a := range call.Arguments {
				parts[i] = consoleString(a)
			}
			log.Log(context.Background(), level, strings.Join(parts, " "), "source", "console."+name)
			return goja.Undefined()
		})
	}
	vm.Set("console", c)
}

// consoleString shows objects as JSON, close to what Node prints.
func consoleString(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok {
		if _, isFn := goja.AssertFunction(o); !isFn {
			if b, err := json.Marshal(o); err == nil {
				return string(b)
			}
		}
	}
	return v.String()
}

// nodeBuiltins are Node's core module names (require('module').builtinModules).
var nodeBuiltins = map[string]bool{}

func init() {
	for _, m := range strings.Fields(`assert async_hooks buffer child_process cluster console
		constants crypto dgram diagnostics_channel dns domain events fs http http2 https
		inspector module net os path perf_hooks process punycode querystring readline repl
		stream string_decoder sys timers tls trace_events tty url util v8 vm wasi
		worker_threads zlib`) {
		nodeBuiltins[m] = true
	}
}

// isNodeBuiltin reports whether name is a Node core module, such as "fs",
// "node:fs" or "fs/promises".
func isNodeBuiltin(name string) bool {
	if strings.HasPrefix(name, "node:") {
		return true
	}
	first, _, _ := strings.Cut(name, "/")
	return nodeBuiltins[first]
}
