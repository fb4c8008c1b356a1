#!/usr/bin/env bash
# A network namespace for browser tests (DESIGN §5): Chromium gathers ICE candidates only on the
# interface carrying the default route, never on lo, and traffic must stay on loopback addresses.
# So: lo up, a veth pair inside the namespace, 127.0.0.2/32 on v0, route_localnet, and a default
# route via v0 (v1 is a dead end: nothing leaves the namespace).
#   scripts/netns.sh up NAME | down NAME
set -euo pipefail
cmd=${1:?usage: netns.sh up|down NAME}
ns=${2:?usage: netns.sh up|down NAME}
case "$cmd" in
  up)
    ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip link add v0 type veth peer name v1
    ip netns exec "$ns" ip addr add 127.0.0.2/32 dev v0
    ip netns exec "$ns" ip link set v0 up
    ip netns exec "$ns" ip link set v1 up
    ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.v0.route_localnet=1
    ip netns exec "$ns" ip route add default dev v0 src 127.0.0.2
    ;;
  down)
    ip netns del "$ns" 2>/dev/null || true
    ;;
  *)
    echo "usage: netns.sh up|down NAME" >&2
    exit 1
    ;;
esac
