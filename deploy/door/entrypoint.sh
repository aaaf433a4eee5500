#!/bin/sh
# Make the door's self-signed TLS certificate on the first start (kept in the volume at
# /var/lib/fallen-door, so restarts keep it and clients can pin it), check the config, run.
# A certificate of your own: mount tls.crt and tls.key there instead.
set -e
dir=/var/lib/fallen-door
if [ ! -s "$dir/tls.crt" ] || [ ! -s "$dir/tls.key" ]; then
  umask 077
  openssl req -x509 -newkey rsa:2048 -nodes -days "${FALLEN_DOOR_CERT_DAYS:-365}" \
    -subj "/CN=${FALLEN_DOOR_HOST:-localhost}" \
    -addext "subjectAltName=DNS:${FALLEN_DOOR_HOST:-localhost},DNS:localhost,IP:127.0.0.1" \
    -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>/dev/null
  chmod 0644 "$dir/tls.crt"
  echo "fallen-door: made a self-signed certificate for ${FALLEN_DOOR_HOST:-localhost}" >&2
fi
nginx -t -q
exec "$@"
