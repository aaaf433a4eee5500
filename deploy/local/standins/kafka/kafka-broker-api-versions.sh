#!/bin/sh
# The official image's probe, answered with one Kafka ApiVersions round trip.
server=localhost:9092
while [ "$#" -gt 0 ]; do
  case "$1" in --bootstrap-server) server="$2"; shift 2 ;; *) shift ;; esac
done
exec python3 /opt/kafka/bin/apiversions.py "$server"
