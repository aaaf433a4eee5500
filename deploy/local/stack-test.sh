#!/usr/bin/env bash
# `make stack-test`: the compose stack for real on this machine, then torn down.
#  1. a Docker engine (engine.sh: apt-get install + dockerd, when missing), the local base
#     image and the stand-in redis/kafka images (base-image.sh, standins.sh): all reused
#     when they exist;
#  2. the project image, built once (`make image`; its build stage is tagged
#     fallen-backend:TAG-build so that the layer cache survives the cleanup at the end),
#     and the front door's image fallen-door:TAG (deploy/door);
#  3. the contract suites' Redis and broker tests with their servers in containers
#     (testcontainers, stand-in images; FALLEN_TEST_SERVER_TESTS_ONLY=1 leaves out the
#     SQLite/memory ones); CI's `make test` runs them all on the local binaries;
#  4. tests/stack: the whole docker-compose.yml up, every healthcheck waited for, bot games
#     through each service's port, views and audit log checked; a game of every kind
#     through the front door only (test_door.py: fallenctl play/view/audit export/replay,
#     a live watch, the web page, TLS), then the cluster test
#     (every service scaled to two, one container of each kind killed), then `down -v`.
# Leaves behind only the images it reuses next time (base, stand-ins, fallen-backend:TAG
# and its build stage, fallen-door:TAG); removes the images its rebuilds made stale, every container,
# volume and network of its compose projects, and stops the dockerd it started (unless
# someone else's containers run on it). Fails loudly (non-zero) on any unhealthy container
# and on any phase that overruns its bound (FALLEN_STACK_TIMEOUT, default 1200 s, for the
# stack tests). On a failure the containers' log lines with "rpc failed", a traceback or an
# ERROR are printed, at most 300 (tests/stack/logdump.py: by the stack fixture, or here
# when pytest was cut off), so a CI failure can be read from the CI output alone.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
py="$root/.venv/bin/python"
tag="${FALLEN_TAG:-dev}"
t0=$(date +%s)
last=$t0
phases=()
phase() { # phase NAME: the time since the previous phase and since the start
  local now; now=$(date +%s)
  phases+=("$1 $(( now - last ))s")
  printf 'stack-test: %s in %ss (%ss in all)\n' "$1" "$(( now - last ))" "$(( now - t0 ))" >&2
  last=$now
}
fail() { printf 'stack-test: FAILED: %s\n' "$*" >&2; exit 1; }

started="$(bash deploy/local/engine.sh)" || fail "no Docker engine (deploy/local/engine.sh)"
cleanup() {
  local rc=$?
  # Whatever this or a killed earlier run left of its compose projects (fallenstack<pid>).
  for p in $(docker ps -a --format '{{.Label "com.docker.compose.project"}}' 2>/dev/null \
             | grep '^fallenstack' | sort -u); do
    # pytest cut off (FALLEN_STACK_TIMEOUT) printed no log lines: the error lines, bounded
    [[ $rc -eq 0 ]] || "$py" -m tests.stack.logdump "$p" >&2 || true
    printf 'stack-test: removing the leftover compose project %s\n' "$p" >&2
    docker rm -f $(docker ps -aq --filter "label=com.docker.compose.project=$p") >/dev/null || true
  done
  for v in $(docker volume ls -q --filter label=com.docker.compose.project 2>/dev/null \
             | grep '^fallenstack'); do
    docker volume rm "$v" >/dev/null 2>&1 || true
  done
  for n in $(docker network ls --format '{{.Name}}' 2>/dev/null | grep '^fallenstack'); do
    docker network rm "$n" >/dev/null 2>&1 || true
  done
  # Images made stale by a rebuild (the previous fallen-backend:TAG, an old build stage).
  docker image prune -f >/dev/null 2>&1 || true
  if [[ "$started" == started && -f /run/fallen-dockerd.pid ]]; then
    others="$(docker ps -q 2>/dev/null | wc -l)"
    if [[ "$others" -eq 0 ]]; then
      kill "$(cat /run/fallen-dockerd.pid)" 2>/dev/null || true
      rm -f /run/fallen-dockerd.pid
    else  # e.g. another session's testcontainers: leave the engine to them
      printf 'stack-test: %s containers of others run: dockerd left running\n' "$others" >&2
    fi
  fi
  printf 'stack-test: %s after %ss (%s)\n' "$([[ $rc -eq 0 ]] && echo OK || echo "FAILED (exit $rc)")" \
    "$(( $(date +%s) - t0 ))" "$(IFS=,; echo "${phases[*]:-}" | sed 's/,/, /g')" >&2
}
trap cleanup EXIT
phase "engine up"

timeout 900 bash deploy/local/base-image.sh || fail "the local base image python:3.11-slim"
timeout 600 bash deploy/local/standins.sh "$py" || fail "the stand-in redis/kafka images"
phase "base and stand-in images"

# The build stage gets a tag, so `docker image prune` at the end keeps its layer cache; the
# image itself is then built from the cache (make image).
if docker buildx version >/dev/null 2>&1; then bk=1; else bk=${DOCKER_BUILDKIT:-0}; fi
DOCKER_BUILDKIT=$bk timeout 900 docker build -q --target build -t "fallen-backend:$tag-build" . \
  >/dev/null || fail "docker build --target build"
timeout 600 make --no-print-directory image >/dev/null || fail "make image"
# The front door (deploy/door: Debian's nginx on debian:bookworm-slim, standins.sh here).
DOCKER_BUILDKIT=$bk timeout 600 docker build -q -t "fallen-door:$tag" deploy/door >/dev/null \
  || fail "docker build deploy/door"
phase "images fallen-backend:$tag and fallen-door:$tag"

# Only the tests that use Redis or the broker: the rest (SQLite, memory) ran in `make test`.
FALLEN_TEST_SERVERS=containers FALLEN_TEST_SERVER_TESTS_ONLY=1 \
  timeout 600 "$py" -m pytest -q -p no:cacheprovider tests/contract \
  || fail "contract suites on testcontainers"
phase "contract suites on testcontainers"

# In this order: the stack as started, every kind of game through the one front door only,
# the image against deploy/, then the cluster test (it scales the services and kills
# containers).
FALLEN_STACK=1 timeout "${FALLEN_STACK_TIMEOUT:-1200}" "$py" -m pytest -q -s -p no:cacheprovider \
  --durations=5 tests/stack/test_stack.py tests/stack/test_door.py \
  tests/stack/test_image_vs_manifests.py tests/stack/test_cluster.py \
  || fail "stack tests (exit $?; 124 = over FALLEN_STACK_TIMEOUT)"
phase "stack and cluster tests"
