#!/usr/bin/env bash
# Builds the container image localhost/signalbox:latest and
# localhost/signalbox:$VERSION from ./signalbox (make build), offline: the
# image starts FROM scratch, so nothing is pulled from a registry.
#
# It uses podman (Debian package podman), or docker when podman is missing
# and docker works. PODMAN_OPTS adds global podman options, such as
# "--storage-driver vfs" where overlay mounts are not allowed; when podman's
# default storage cannot be used, vfs is tried on its own.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
IMAGE=${IMAGE:-localhost/signalbox}
CA=${CA_CERTIFICATES:-/etc/ssl/certs/ca-certificates.crt}

[ -x signalbox ] || { echo "image.sh: ./signalbox is missing: run make build (or make image)" >&2; exit 1; }
file_is_static() { ! { command -v ldd >/dev/null && ldd signalbox >/dev/null 2>&1; }; }
file_is_static || { echo "image.sh: ./signalbox is not static: build it with CGO_ENABLED=0 (make build)" >&2; exit 1; }
[ -f "$CA" ] || { echo "image.sh: $CA is missing (Debian package ca-certificates)" >&2; exit 1; }

engine=()
if command -v podman >/dev/null 2>&1; then
	# shellcheck disable=SC2206 # options are words
	engine=(podman ${PODMAN_OPTS:-})
	if ! "${engine[@]}" images >/dev/null 2>&1; then
		engine=(podman --storage-driver vfs ${PODMAN_OPTS:-})
	fi
elif command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
	engine=(docker)
else
	echo "image.sh: podman (apt-get install podman) or a working docker is needed" >&2
	exit 1
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
mkdir -p "$ctx/rootfs/etc/ssl/certs" "$ctx/rootfs/tmp" "$ctx/data"
chmod 1777 "$ctx/rootfs/tmp"
chmod 0755 "$ctx/rootfs" "$ctx/rootfs/etc" "$ctx/data"
cp "$CA" "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
chmod 0644 "$ctx/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nsignalbox:x:65532:65532:signalbox:/data:/sbin/nologin\n' >"$ctx/rootfs/etc/passwd"
printf 'root:x:0:\nsignalbox:x:65532:\n' >"$ctx/rootfs/etc/group"
chmod 0644 "$ctx/rootfs/etc/passwd" "$ctx/rootfs/etc/group"
cp signalbox "$ctx/signalbox"
chmod 0755 "$ctx/signalbox"

format=()
[ "${engine[0]}" = podman ] && format=(--format docker) # keeps HEALTHCHECK
"${engine[@]}" build "${format[@]}" --pull=never \
	--build-arg "VERSION=$VERSION" --build-arg "REVISION=$COMMIT" \
	-t "$IMAGE:latest" -t "$IMAGE:$VERSION" -f deploy/image/Containerfile "$ctx"
echo "built $IMAGE:latest and $IMAGE:$VERSION with ${engine[*]}"
