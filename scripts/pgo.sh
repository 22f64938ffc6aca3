#!/usr/bin/env bash
# Regenerates cmd/signalbox/default.pgo, the CPU profile the Go compiler
# optimises the binary for (profile-guided optimisation: "go build" picks
# default.pgo up by itself). The profile is the proxy's and the server's own,
# recorded under the load benchmark (cmd/sbbench) at 60, 500 and 5,000 flags,
# so it weighs the hot paths as the load table does. Run it after changes
# that move where those paths spend their time; a stale profile still builds
# and only optimises less.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go run ./cmd/sbbench -no-reference -cpu-profiles "$dir" >/dev/null
go tool pprof -proto "$dir"/*.pprof >"$dir/merged.pgo"
mv "$dir/merged.pgo" cmd/signalbox/default.pgo
echo "pgo.sh: wrote cmd/signalbox/default.pgo ($(wc -c <cmd/signalbox/default.pgo) bytes)"
