#!/bin/sh
# Like the official image: listen on every interface, no protected mode, run as redis.
set -e
if [ "${1:-redis-server}" = "redis-server" ]; then
  [ "$#" -gt 0 ] && shift
  exec setpriv --reuid=redis --regid=redis --init-groups \
    redis-server --bind 0.0.0.0 --protected-mode no --dir /data "$@"
fi
exec "$@"
