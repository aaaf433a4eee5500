#!/bin/sh
# Map the official image's environment onto Tansu: listen on KAFKA_PORT (9092) on every
# interface and advertise the PLAINTEXT entry of KAFKA_ADVERTISED_LISTENERS.
set -e
port="${KAFKA_PORT:-9092}"
adv="$(printf '%s' "${KAFKA_ADVERTISED_LISTENERS:-PLAINTEXT://localhost:$port}" \
  | tr ',' '\n' | grep -m1 '^PLAINTEXT://' | sed 's|^PLAINTEXT://||')"
[ -n "$adv" ] || adv="localhost:$port"
exec /usr/local/bin/tansu broker --listener-url "tcp://0.0.0.0:$port" \
  --advertised-listener-url "tcp://$adv" --storage-engine memory://tansu/ "$@"
