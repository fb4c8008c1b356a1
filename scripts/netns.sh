#!/usr/bin/env bash
# A network namespace for browser tests (docs/design.md): Chromium gathers ICE candidates only on
# the interface carrying the default route, never on lo, and no traffic may leave the machine. So:
# lo up, a veth pair inside the namespace, 10.99.0.2/32 on v0 (a private address, as a viewer on
# a LAN has: the engine refuses loopback candidates by default), route_localnet for the services
# on 127.0.0.1 (managed coturn), and a default route via v0 (v1 is a dead end: nothing leaves).
#   scripts/netns.sh up NAME | down NAME
set -euo pipefail
cmd=${1:?usage: netns.sh up|down NAME}
ns=${2:?usage: netns.sh up|down NAME}
case "$cmd" in
  up)
    ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip link add v0 type veth peer name v1
    ip netns exec "$ns" ip addr add 10.99.0.2/32 dev v0
    ip netns exec "$ns" ip link set v0 up
    ip netns exec "$ns" ip link set v1 up
    ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.v0.route_localnet=1
    ip netns exec "$ns" ip route add default dev v0 src 10.99.0.2
    ;;
  down)
    ip netns del "$ns" 2>/dev/null || true
    ;;
  *)
    echo "usage: netns.sh up|down NAME" >&2
    exit 1
    ;;
esac
