# Convenience targets; scripts/test.sh is what CI runs.
.PHONY: build release image test bench bench-go bench-load pgo

# The version stamped into the binary: the nearest tag, commits since and
# the commit ("v1.2.0-3-gabc1234"), "-dirty" for uncommitted changes.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
BUILD_DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
BUILDINFO := github.com/signalbox/signalbox/internal/buildinfo
LDFLAGS := -s -w -X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).commit=$(COMMIT) -X $(BUILDINFO).date=$(BUILD_DATE)
export VERSION COMMIT BUILD_DATE LDFLAGS

# The release binary: static (no C library to find or map at run time),
# without paths of the build machine, its version stamped by the linker.
build:
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o signalbox ./cmd/signalbox

# dist/: archives for Linux, macOS and Windows and their checksums.txt.
release:
	./scripts/release.sh

# localhost/signalbox:latest and :$(VERSION), built offline from the
# static binary (podman, or docker when it works).
image: build
	./scripts/image.sh

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
