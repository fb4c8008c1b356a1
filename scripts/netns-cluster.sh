#!/usr/bin/env bash
# Network namespaces for cluster tests (docs/cluster.md): the runner's namespace NAME (the test,
# Chromium and Redis, at 10.99.0.2, as scripts/netns.sh) holds a bridge br0; each node gets its own
# namespace NAME-nI joined to br0 by a veth pair, at 10.99.0.(10+I)/24. Nodes and the browser
# reach each other only across the bridge, so media a browser plays names the node that sent it.
# Nothing leaves the machine: the bridge has no uplink.
#   scripts/netns-cluster.sh up NAME COUNT | down NAME COUNT
set -euo pipefail
cmd=${1:?usage: netns-cluster.sh up|down NAME COUNT}
ns=${2:?usage: netns-cluster.sh up|down NAME COUNT}
count=${3:-2}
case "$cmd" in
  up)
    ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip link add br0 type bridge
    ip netns exec "$ns" ip addr add 10.99.0.2/24 dev br0
    ip netns exec "$ns" ip link set br0 up
    ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.br0.route_localnet=1
    ip netns exec "$ns" ip route add default dev br0 src 10.99.0.2
    for i in $(seq 1 "$count"); do
      node="$ns-n$i"
      ip netns add "$node"
      ip netns exec "$node" ip link set lo up
      # made inside the runner's namespace: the host's own interfaces are never touched
      ip netns exec "$ns" ip link add "vn$i" type veth peer name eth0 netns "$node"
      ip netns exec "$node" ip addr add "10.99.0.$((10 + i))/24" dev eth0
      ip netns exec "$node" ip link set eth0 up
      ip netns exec "$node" ip route add default dev eth0 src "10.99.0.$((10 + i))"
      ip netns exec "$ns" ip link set "vn$i" master br0
      ip netns exec "$ns" ip link set "vn$i" up
    done
    ;;
  down)
    for i in $(seq 1 "$count"); do ip netns del "$ns-n$i" 2>/dev/null || true; done
    ip netns del "$ns" 2>/dev/null || true
    ;;
  *)
    echo "usage: netns-cluster.sh up|down NAME COUNT" >&2
    exit 1
    ;;
esac
