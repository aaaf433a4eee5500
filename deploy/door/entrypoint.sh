#!/bin/sh
# Make the door's self-signed TLS certificate on the first start (kept in the volume at
# /var/lib/fallen-door, so restarts keep it and clients can pin it), check the config, run.
# A certificate of your own: mount tls.crt and tls.key there instead.
set -e
dir=/var/lib/fallen-door
if [ ! -s "$dir/tls.crt" ] || [ ! -s "$dir/tls.key" ]; then
  (umask 077 && openssl req -x509 -newkey rsa:2048 -nodes -days "${FALLEN_DOOR_CERT_DAYS:-365}" \
    -subj "/CN=${FALLEN_DOOR_HOST:-localhost}" \
    -addext "subjectAltName=DNS:${FALLEN_DOOR_HOST:-localhost},DNS:localhost,IP:127.0.0.1" \
    -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>/dev/null)
  chmod 0644 "$dir/tls.crt"
  echo "fallen-door: made a self-signed certificate for ${FALLEN_DOOR_HOST:-localhost}" >&2
fi
# The resolver (FALLEN_DOOR_RESOLVER, default the first nameserver of /etc/resolv.conf) and
# the domain appended to every service name (FALLEN_DOOR_DOMAIN, default none).
run=/run/fallen-door
mkdir -p "$run"
resolver="${FALLEN_DOOR_RESOLVER:-$(awk '$1 == "nameserver" {print $2; exit}' /etc/resolv.conf)}"
domain="${FALLEN_DOOR_DOMAIN:+.${FALLEN_DOOR_DOMAIN#.}}"
cat >"$run/env.conf" <<EOF
resolver ${resolver:-127.0.0.11} valid=10s ipv6=off;
resolver_timeout 5s;
map "" \$fallen_domain {
  default "$domain";
}
EOF
nginx -t -q
exec "$@"
