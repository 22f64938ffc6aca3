# Convenience targets; scripts/test.sh is what CI runs.
.PHONY: build test bench bench-go bench-load pgo

# The release binary: static (no C library to find or map at run time),
# without paths of the build machine.
build:
	CGO_ENABLED=0 go build -trimpath -o signalbox ./cmd/signalbox

test:
	./scripts/test.sh

# Micro-benchmarks of the engine, the client API and the proxy handlers.
bench-go:
	go test -run=^$$ -bench=. -benchmem ./engine ./server ./proxy

# Loopback load: proxy, plain handler, reference @unleash/proxy (when
# installed in test/compat), client API (200 and 304) and frontend API.
bench-load:
	go run ./cmd/sbbench -sizes 60,500,5000 -d 5s

bench: bench-go bench-load

# Re-records cmd/signalbox/default.pgo, the profile "go build" optimises
# the binary for, from the proxy and server under the load benchmark.
pgo:
	./scripts/pgo.sh
