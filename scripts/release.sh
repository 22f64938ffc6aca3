#!/usr/bin/env bash
# Writes dist/: signalbox_<version>_<os>_<arch>.tar.gz for Linux and macOS
# (amd64, arm64), a .zip for Windows amd64, each holding the static binary,
# LICENSE and README.md, and checksums.txt (sha256sum -c checks it).
# "make release" runs it with VERSION, COMMIT, BUILD_DATE and LDFLAGS set.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
BUILD_DATE=${BUILD_DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}
BUILDINFO=github.com/signalbox/signalbox/internal/buildinfo
LDFLAGS=${LDFLAGS:-"-s -w -X $BUILDINFO.version=$VERSION -X $BUILDINFO.commit=$COMMIT -X $BUILDINFO.date=$BUILD_DATE"}
TARGETS=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"}
JOBS=${JOBS:-2}
export VERSION LDFLAGS

command -v zip >/dev/null || {
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zip >/dev/null
	else
		echo "release.sh: zip is needed for the Windows archive (apt-get install zip)" >&2
		exit 1
	fi
}

rm -rf dist
mkdir -p dist

# package builds one target into dist/ as its archive.
package() {
	local os=${1%/*} arch=${1#*/}
	local name="signalbox_${VERSION}_${os}_${arch}" exe=signalbox
	[ "$os" = windows ] && exe=signalbox.exe
	local stage="dist/.stage/$name"
	mkdir -p "$stage"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$LDFLAGS" -o "$stage/$exe" ./cmd/signalbox
	cp LICENSE README.md "$stage/"
	if [ "$os" = windows ]; then
		(cd "$stage" && zip -q -X "../../$name.zip" "$exe" LICENSE README.md)
	else
		tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "dist/$name.tar.gz" "$exe" LICENSE README.md
	fi
	echo "dist/$name built"
}
export -f package

# Two builds at a time: each compiles the whole program for its target.
printf '%s\n' $TARGETS | xargs -P "$JOBS" -I{} bash -c 'package {}'
rm -rf dist/.stage
(cd dist && shopt -s nullglob && sha256sum -- *.tar.gz *.zip >checksums.txt)
(cd dist && sha256sum -c --quiet checksums.txt)
echo "dist/checksums.txt written"
