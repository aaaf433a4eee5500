#!/usr/bin/env bash
# Build the stand-in base image python:3.11-slim locally (no registry is reachable here):
# a Debian bookworm minbase with Python 3.11 and this machine's CA certificates, imported
# with `docker import`. Idempotent: does nothing when an image of that name exists.
# Only this local stand-in gets the machine's CA certificates; the Dockerfile never does.
set -euo pipefail

tag="${1:-python:3.11-slim}"
log() { printf 'base-image: %s\n' "$*" >&2; }

if docker image inspect "$tag" >/dev/null 2>&1; then
  exit 0
fi
mirror="${FALLEN_DEBIAN_MIRROR:-}"
if [[ -z "$mirror" ]]; then
  mirror="$(grep -rhoE '^(URIs:|deb) *(\[[^]]*\] *)?https?://[^ ]+/debian/?( |$)' \
    /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
    | grep -oE 'https?://[^ ]+' | head -n 1)" || true
fi
[[ -n "$mirror" ]] || { log "no Debian mirror found in /etc/apt; set FALLEN_DEBIAN_MIRROR"; exit 1; }
rootfs="$(mktemp -d "${TMPDIR:-/tmp}/fallen-base.XXXXXX")"
trap 'rm -rf "$rootfs"' EXIT
log "debootstrap bookworm from $mirror into $rootfs"
debootstrap --variant=minbase \
  --include=python3,python3-venv,python3-pip,python-is-python3,ca-certificates \
  bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || { tail -n 20 "$rootfs.log" >&2; exit 1; }
rm -f "$rootfs.log"
shopt -s nullglob
certs=(/usr/local/share/ca-certificates/*.crt)
if ((${#certs[@]})); then
  mkdir -p "$rootfs/usr/local/share/ca-certificates"
  cp "${certs[@]}" "$rootfs/usr/local/share/ca-certificates/"
  chroot "$rootfs" update-ca-certificates >/dev/null
fi
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import \
  --change 'ENV LANG=C.UTF-8' --change 'CMD ["python3"]' \
  --change 'LABEL org.fallen.standin=base' - "$tag" >/dev/null
log "imported $tag"
