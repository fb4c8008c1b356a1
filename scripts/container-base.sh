#!/usr/bin/env bash
# Makes the Dockerfile's base image, debian:bookworm-slim, from Debian's archive with debootstrap,
# for machines that cannot pull images from a registry (this project's CI and developer machines):
# a minbase bookworm, trimmed as the official slim image is (no docs, man pages or locales), then
# `podman import`ed under the name the Dockerfile's FROM resolves to, so the same Dockerfile
# builds unchanged here and, with the pulled image, anywhere else. Skips all of it when the image
# is already in podman's storage (MOUTHPIECE_BASE_REBUILD=1 makes it again).
# Needs root and Debian's debootstrap and podman (apt-get install debootstrap podman).
set -euo pipefail

image=docker.io/library/debian:bookworm-slim
# the mirror apt uses on this machine (deb822 or one-line sources), else Debian's own
mirror=${MOUTHPIECE_DEBIAN_MIRROR:-$(
  {
    grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}'
    grep -hE '^deb ' /etc/apt/sources.list 2>/dev/null | awk '{print $2}'
  } | grep -E '/debian/?$' | head -1 || true
)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ "${MOUTHPIECE_BASE_REBUILD:-}" != 1 ] && podman image exists "$image"; then
  echo "container base: $image already in podman's storage"
  exit 0
fi
for bin in debootstrap podman; do
  command -v "$bin" >/dev/null || { echo "missing $bin: apt-get install debootstrap podman" >&2; exit 1; }
done

root=$(mktemp -d /var/tmp/mouthpiece-base.XXXXXX)
trap 'rm -rf "$root"' EXIT
echo "container base: debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
  tail -20 "$root.log" >&2
  exit 1
}
rm -f "$root.log"

# what the official slim image leaves out, for every later install in the image too
cat >"$root/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
cat >"$root/etc/apt/apt.conf.d/slim" <<'EOF'
APT::Install-Recommends "false";
Acquire::Languages "none";
EOF
rm -rf "$root"/usr/share/doc/*/[!c]* "$root"/usr/share/man/* "$root"/usr/share/info/* \
  "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
find "$root/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
# the same sources file as the official image (deb822)
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/}-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF

tar -C "$root" --numeric-owner -c . |
  podman import -q --change 'CMD ["bash"]' \
    --message "debootstrap minbase bookworm (scripts/container-base.sh)" - "$image" >/dev/null
echo "container base: imported $image ($(podman image inspect --format '{{.Size}}' "$image") bytes)"
