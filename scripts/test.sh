#!/usr/bin/env bash
# Runs every check Signalbox has: vet, staticcheck, the whole test suite
# (client specification, SQLite and PostgreSQL store suites, end-to-end
# tests over loopback) and a short run of every fuzz target.
#
# It installs nothing system-wide except what a test needs and is missing
# (chromium, podman and zip, through apt-get when run as root): PostgreSQL is started by the tests themselves from the machine's binaries.
# With CI set, a test that cannot find what it needs fails instead of
# skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZTIME=${FUZZTIME:-4s}

say() { printf '\n== %s\n' "$*"; }

command -v go >/dev/null || { echo "test.sh: the Go toolchain (go 1.26) is not on PATH" >&2; exit 1; }

# The store tests start a throwaway PostgreSQL from initdb/pg_ctl.
if ! command -v initdb >/dev/null 2>&1; then
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && PATH="$d:$PATH"
	done
	export PATH
fi
if ! command -v initdb >/dev/null 2>&1; then
	if [ -n "${CI:-}" ]; then
		echo "test.sh: PostgreSQL binaries (initdb, pg_ctl) are missing; install postgresql" >&2
		exit 1
	fi
	echo "test.sh: PostgreSQL binaries missing: the PostgreSQL store tests will skip (they fail under CI)" >&2
fi

# The compatibility tests drive real Unleash clients from npm (versions
# pinned in test/compat/package-lock.json).
if command -v npm >/dev/null 2>&1; then
	say "npm clients for the compatibility tests"
	(cd test/compat && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
	# The migration test copies a real Unleash server (pinned in
	# test/unleash/package-lock.json), kept apart so the clients stay small.
	say "Unleash server for the migration test"
	(cd test/unleash && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
elif [ -n "${CI:-}" ]; then
	echo "test.sh: node and npm are needed for the compatibility tests" >&2
	exit 1
fi

# The server's contract tests compare its answers with Unleash's OpenAPI
# document: what the open-source unleash-server 8.2.0 (pinned in
# test/unleash) serves at /docs/openapi.json. A copy beside the checkout
# (shared/reference) or in the cache is used when present; otherwise the
# pinned server is started once on a throwaway PostgreSQL to serve it, and
# the copy is cached. The tests read it from SIGNALBOX_UNLEASH_OPENAPI.
if [ -z "${SIGNALBOX_UNLEASH_OPENAPI:-}" ]; then
	for d in . .. ../.. ../../..; do
		if [ -f "$d/shared/reference/unleash-server-8.2-openapi.json" ]; then
			SIGNALBOX_UNLEASH_OPENAPI=$(cd "$d/shared/reference" && pwd)/unleash-server-8.2-openapi.json
			break
		fi
	done
fi
if [ -z "${SIGNALBOX_UNLEASH_OPENAPI:-}" ]; then
	cache="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/signalbox"
	SIGNALBOX_UNLEASH_OPENAPI="$cache/unleash-server-8.2-openapi.json"
	if [ ! -f "$SIGNALBOX_UNLEASH_OPENAPI" ]; then
		say "Unleash's OpenAPI document, from the pinned unleash-server"
		if ! command -v node >/dev/null 2>&1 || [ ! -f test/unleash/node_modules/unleash-server/package.json ]; then
			echo "test.sh: Unleash's OpenAPI document is needed by the contract tests: install node and npm (test/unleash's unleash-server serves it)" >&2
			exit 1
		fi
		go run ./cmd/unleashopenapi -dir test/unleash -out "$SIGNALBOX_UNLEASH_OPENAPI"
	fi
fi
export SIGNALBOX_UNLEASH_OPENAPI

# The admin UI's browser tests drive Debian's chromium headless.
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1 && [ -z "${CHROME_PATH:-}" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		say "chromium for the browser tests"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
	elif [ -n "${CI:-}" ]; then
		echo "test.sh: chromium is needed for the browser tests (apt-get install chromium, or set CHROME_PATH)" >&2
		exit 1
	else
		echo "test.sh: chromium missing: the browser tests will skip (they fail under CI)" >&2
	fi
fi

say "go.mod is tidy"
if ! go mod tidy -diff; then
	echo "test.sh: go.mod/go.sum are not tidy: run 'go mod tidy' and commit the result" >&2
	exit 1
fi

say "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './test/*/node_modules/*'))
if [ -n "$unformatted" ]; then
	echo "test.sh: not formatted with gofmt (run gofmt -w on them):" >&2
	echo "$unformatted" >&2
	exit 1
fi

say "go vet"
go vet ./...

say "staticcheck"
go tool staticcheck ./...

say "client specification"
go test -count=1 -run '^TestClientSpecification$' -v ./engine | grep -E '^(spec|--- FAIL|FAIL|ok)'

# A package's tests may take longer than go test's default ten minutes on a
# slow or busy machine (the server's under the race detector above all).
TIMEOUT=${TEST_TIMEOUT:-30m}

say "tests"
go test -count=1 -timeout "$TIMEOUT" ./...

# How Signalbox is installed: make build's version, make release's archives
# and checksums, make image (podman, built offline) run chrooted, the Helm
# chart rendered by helm (built once into the cache) and decoded into
# Kubernetes API types, the Compose file and the systemd units. A module of
# its own (test/packaging), so not part of "go test ./..." above.
say "packaging"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	missing=""
	command -v podman >/dev/null 2>&1 || missing="$missing podman"
	command -v zip >/dev/null 2>&1 || missing="$missing zip"
	if [ -n "$missing" ]; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
	fi
fi
(
	cd test/packaging
	go mod tidy -diff || { echo "test.sh: test/packaging's go.mod is not tidy" >&2; exit 1; }
	go vet .
	go test -count=1 -timeout "$TIMEOUT" .
)

# Benchmarks are not timed here: each runs once so that one which no longer
# works (a fixture that a new rule refuses, say) fails the build instead of
# the next person who measures.
say "every benchmark, once"
go test -count=1 -run '^$' -bench . -benchtime 1x ./... >/tmp/signalbox-bench.log 2>&1 || {
	cat /tmp/signalbox-bench.log
	exit 1
}

say "race detector on the concurrent packages"
go test -count=1 -race -timeout "$TIMEOUT" $(go list ./engine/... ./answer/... ./proxy/... ./store/... ./server/... ./internal/... 2>/dev/null)

say "fuzz targets ($FUZZTIME each)"
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
		echo "fuzz $pkg $target"
		# Go's fuzzing coordinator sometimes reports its own time limit as a
		# failure ("context deadline exceeded") with no failing input; such
		# a run is tried once more. A real failure writes its input.
		for attempt in 1 2; do
			if go test -run='^$' -fuzz="^${target}\$" -fuzztime="$FUZZTIME" "$pkg" >/tmp/signalbox-fuzz.log 2>&1; then
				break
			fi
			if [ "$attempt" = 1 ] && grep -q "context deadline exceeded" /tmp/signalbox-fuzz.log &&
				! grep -q "Failing input written" /tmp/signalbox-fuzz.log; then
				echo "fuzz $pkg $target: the coordinator's deadline, not a failing input; once more"
				continue
			fi
			cat /tmp/signalbox-fuzz.log
			exit 1
		done
	done
done
say "all checks passed"
