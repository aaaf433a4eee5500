#!/usr/bin/env bash
# `make stack-test`: the compose stack for real on this machine, then torn down.
#  1. a Docker engine (engine.sh: apt-get install + dockerd, when missing), the local base
#     image and the stand-in redis/kafka images (base-image.sh, standins.sh): all reused
#     when they exist;
#  2. the project image (`make image`);
#  3. the contract suites' Redis and broker tests with their servers in containers
#     (testcontainers, stand-in images; FALLEN_TEST_SERVER_TESTS_ONLY=1 leaves out the
#     SQLite/memory ones); CI's `make test` runs them all on the local binaries;
#  4. tests/stack: the whole docker-compose.yml up, every healthcheck waited for, bot games
#     through the published ports, views and audit log checked, then the cluster test
#     (pools scaled to two, one container of each kind killed), then `down -v`.
# Leaves behind only the images it reuses next time (base, stand-ins, fallen-backend:dev);
# stops the dockerd it started. Fails loudly (non-zero) on any unhealthy container.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
py="$root/.venv/bin/python"
t0=$(date +%s)
phase() { printf 'stack-test: %s (%ss)\n' "$*" "$(( $(date +%s) - t0 ))" >&2; }

started="$(bash deploy/local/engine.sh)"
stop_engine() {
  # Whatever a killed test run left of its compose projects (fallenstack<pid>).
  for p in $(docker ps -a --format '{{.Label "com.docker.compose.project"}}' 2>/dev/null \
             | grep '^fallenstack' | sort -u); do
    docker rm -f $(docker ps -aq --filter "label=com.docker.compose.project=$p") >/dev/null || true
    docker volume rm $(docker volume ls -q --filter "label=com.docker.compose.project=$p") \
      >/dev/null 2>&1 || true
    docker network rm "${p}_default" >/dev/null 2>&1 || true
  done
  if [[ "$started" == started && -f /run/fallen-dockerd.pid ]]; then
    kill "$(cat /run/fallen-dockerd.pid)" 2>/dev/null || true
    rm -f /run/fallen-dockerd.pid
  fi
}
trap stop_engine EXIT
phase "engine up"
bash deploy/local/base-image.sh
bash deploy/local/standins.sh "$py"
phase "base and stand-in images ready"
make --no-print-directory image
phase "image fallen-backend:${FALLEN_TAG:-dev} built"

# Only the tests that use Redis or the broker: the rest (SQLite, memory) ran in `make test`.
FALLEN_TEST_SERVERS=containers FALLEN_TEST_SERVER_TESTS_ONLY=1 \
  "$py" -m pytest -q -p no:cacheprovider tests/contract
phase "contract suites (their Redis and broker tests) on testcontainers passed"

# In this order: the stack as started, the image against deploy/, then the cluster test
# (it scales the pools and kills containers).
FALLEN_STACK=1 "$py" -m pytest -q -s -p no:cacheprovider tests/stack/test_stack.py \
  tests/stack/test_image_vs_manifests.py tests/stack/test_cluster.py
phase "stack and cluster tests passed"
docker image prune -f >/dev/null  # dangling layers of rebuilt images only
phase "done"
