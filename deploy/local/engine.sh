#!/usr/bin/env bash
# Make a Docker engine answer `docker info` on this machine (idempotent, needs root):
# installs docker.io, docker-compose and debootstrap with apt when missing, then starts
# dockerd in the background when no engine answers. Prints "started" when it started one.
set -euo pipefail

log() { printf 'engine: %s\n' "$*" >&2; }

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if ((${#need[@]})); then
  [[ $(id -u) -eq 0 ]] || { log "missing ${need[*]} and not root"; exit 1; }
  log "installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

if docker info >/dev/null 2>&1; then
  exit 0
fi
log "starting dockerd (log: /var/log/fallen-dockerd.log)"
nohup dockerd >/var/log/fallen-dockerd.log 2>&1 &
echo $! >/run/fallen-dockerd.pid
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo started
    exit 0
  fi
  sleep 1
done
log "dockerd did not answer in 60 s:"
tail -n 20 /var/log/fallen-dockerd.log >&2
exit 1
