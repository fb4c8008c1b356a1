#!/usr/bin/env bash
# Builds the container image (Dockerfile) with podman as localhost/mouthpiece:latest, for the
# container e2e tests (e2e/container.e2e.test.ts, e2e/compose-cluster.e2e.test.ts) and for
# compose.yaml, and compose's Redis (deploy/redis/Dockerfile) as localhost/mouthpiece-redis:latest. Its base image is made by
# scripts/container-base.sh when it is not in podman's storage (no registry is pulled from). Layers
# are cached: a rerun with the same package-lock.json reuses the installed node_modules.
# Needs root and Debian's podman, buildah, runc and debootstrap (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
image=${MOUTHPIECE_CONTAINER_IMAGE:-localhost/mouthpiece:latest}

bash scripts/container-base.sh
flags=(--format docker --network host --pull=never --runtime runc
  --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 -t "$image")
# the npm registry through a TLS-inspecting proxy: its CA is in the system bundle (Dockerfile)
ca=/etc/ssl/certs/ca-certificates.crt
[ -s "$ca" ] && flags+=(--secret "id=npm_ca,src=$ca")
old=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
started=$SECONDS
# the build's output: kept where MOUTHPIECE_CONTAINER_BUILD_LOG says (scripts/test.sh shows its end
# in its summary), else in a temporary file shown on failure
log=${MOUTHPIECE_CONTAINER_BUILD_LOG:-$(mktemp)}
if ! podman build "${flags[@]}" . >"$log" 2>&1; then
  tail -40 "$log" >&2
  [ -n "${MOUTHPIECE_CONTAINER_BUILD_LOG:-}" ] || rm -f "$log"
  exit 1
fi
[ -n "${MOUTHPIECE_CONTAINER_BUILD_LOG:-}" ] || rm -f "$log"
new=$(podman image inspect --format '{{.Id}}' "$image")
# the image this build replaced, now untagged (cached layers of earlier stages stay)
if [ -n "$old" ] && [ "$old" != "$new" ]; then podman rmi "$old" >/dev/null 2>&1 || true; fi
echo "container image: $image built in $((SECONDS - started)) s ($(podman image inspect --format '{{.Size}}' "$image") bytes)"

# compose.yaml's Redis for the cluster profile (same base; Debian's redis-server)
redis=${MOUTHPIECE_REDIS_IMAGE:-localhost/mouthpiece-redis:latest}
started=$SECONDS
if ! out=$(podman build --format docker --network host --pull=never --runtime runc \
  --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 -t "$redis" deploy/redis 2>&1); then
  echo "$out" | tail -40 >&2
  [ -z "${MOUTHPIECE_CONTAINER_BUILD_LOG:-}" ] || echo "$out" >>"$MOUTHPIECE_CONTAINER_BUILD_LOG"
  exit 1
fi
echo "container image: $redis built in $((SECONDS - started)) s"
