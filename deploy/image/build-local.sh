#!/usr/bin/env bash
# Build the agent image with no image registry: debootstrap a Debian bookworm rootfs, install the codes with apt
# inside the chroot, install the Python wheels with `pip --target` into it, `docker import` it, then `docker build`
# the last layers (user, manuals) FROM that local image. Skipped when an image with the same content hash exists.
#
# usage: deploy/image/build-local.sh [slim|full] [--force]
# env:   CMB_DEBIAN_MIRROR, CMB_DEBIAN_SECURITY_MIRROR (default: the Debian archives this machine's apt uses, see
#        debian-mirror.sh), CMB_IMAGE_WORKDIR (scratch, default /var/tmp), CMB_IMAGE_CACHE (downloaded .deb and
#        wheel files kept between builds, default /var/cache/cmb-image)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
variant="${1:-full}"
force="${2:-}"
case "$variant" in slim|full) ;; *) echo "usage: $0 [slim|full] [--force]" >&2; exit 2 ;; esac
tag="cmb-agent:$variant"
base_tag="cmb-base:bookworm-$variant"

# The offline manuals library (`cmb manuals build`) goes into /opt/manuals; its manifest names its recipe.
manuals="${CMB_MANUALS:-${XDG_CACHE_HOME:-$HOME/.cache}/cmb/manuals}"
[ -f "$manuals/manifest.json" ] || { echo "$0: no manuals library at $manuals; run: cmb manuals build" >&2; exit 1; }
# The content hash covers everything that decides what goes into the image.
hash="$(cd "$here" && cat build-local.sh Dockerfile.local "packages.$variant.txt" "requirements.$variant.txt" \
  $(find files -type f | sort) <(grep '"recipe"' "$manuals/manifest.json") | sha256sum | cut -c1-16)"
current() { docker image inspect "$tag" --format '{{ index .Config.Labels "cmb.image-hash" }}' 2>/dev/null || true; }
if [ "$(current)" = "$hash" ] && [ "$force" != "--force" ]; then
  echo "$tag is up to date (content hash $hash)"
  exit 0
fi
# One build at a time (parallel test runs share the package cache); a waiting build of the same image finds it built.
exec 9>"${CMB_IMAGE_WORKDIR:-/var/tmp}/cmb-image.lock"
flock 9
if [ "$(current)" = "$hash" ] && [ "$force" != "--force" ]; then
  echo "$tag is up to date (content hash $hash)"
  exit 0
fi
previous="$(docker image inspect "$tag" --format '{{ .Id }}' 2>/dev/null || true)"

for tool in debootstrap docker python3; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is required (apt-get install debootstrap docker.io)" >&2; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "$0: debootstrap and chroot need root" >&2; exit 1; }
# Only a build needs the mirrors (an image that is up to date needs none); each lookup explains its own failure.
mirror="$(bash "$here/debian-mirror.sh" main)"
security="$(bash "$here/debian-mirror.sh" security)"

start=$(date +%s)
cache="${CMB_IMAGE_CACHE:-/var/cache/cmb-image}"
mkdir -p "$cache/debootstrap" "$cache/apt/partial" "$cache/pip"
scratch="$(mktemp -d "${CMB_IMAGE_WORKDIR:-/var/tmp}/cmb-image.XXXXXX")"
rootfs="$scratch/rootfs"
cleanup() {
  for m in var/cache/apt/archives proc sys dev/pts dev; do
    mountpoint -q "$rootfs/$m" 2>/dev/null && umount -l "$rootfs/$m"
  done
  rm -rf "$scratch"
}
trap cleanup EXIT

pkgs() { grep -v '^\s*#' "$here/$1" | grep -v '^\s*$' | tr '\n' ' '; }

echo "== debootstrap bookworm ($variant) into $rootfs"
debootstrap --variant=minbase --cache-dir="$cache/debootstrap" --include=python3,ca-certificates bookworm "$rootfs" "$mirror" >"$scratch/debootstrap.log" 2>&1 \
  || { tail -30 "$scratch/debootstrap.log" >&2; exit 1; }

cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SOURCES
# Keep the image small: no recommends, no translations.
printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\nAcquire::Languages "none";\n' \
  >"$rootfs/etc/apt/apt.conf.d/90cmb"
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
mount -t proc proc "$rootfs/proc"
mount -t sysfs sys "$rootfs/sys"
mount --bind /dev "$rootfs/dev"
mount --bind /dev/pts "$rootfs/dev/pts"
mount --bind "$cache/apt" "$rootfs/var/cache/apt/archives"

echo "== apt-get install: $(pkgs "packages.$variant.txt")"
chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 \
  sh -c "apt-get update -qq && apt-get upgrade -y -qq && apt-get install -y -qq $(pkgs "packages.$variant.txt")" \
  >"$scratch/apt.log" 2>&1 || { tail -30 "$scratch/apt.log" >&2; exit 1; }
for m in var/cache/apt/archives dev/pts dev sys proc; do umount -l "$rootfs/$m"; done
rm -f "$rootfs/var/cache/apt/archives/"*.deb
: >"$rootfs/etc/resolv.conf"

echo "== pip --target: $(pkgs "requirements.$variant.txt")"
site="$rootfs/usr/local/lib/python3.11/dist-packages"
python3 -m pip install -q --cache-dir "$cache/pip" --disable-pip-version-check --no-warn-script-location --root-user-action=ignore --no-warn-conflicts \
  --target "$site" --implementation cp --python-version 3.11 --abi cp311 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  --only-binary=:all: -r "$here/requirements.$variant.txt" 2> >(grep -v '^WARNING: Location' >&2)
# Console scripts were written for the host interpreter: point them at the image's one.
if [ -d "$site/bin" ]; then
  mkdir -p "$rootfs/usr/local/bin"
  for f in "$site/bin"/*; do
    sed -i '1s|^#!.*python.*$|#!/usr/bin/python3|' "$f"
    mv "$f" "$rootfs/usr/local/bin/"
  done
  rmdir "$site/bin"
fi
find "$site" -name '__pycache__' -prune -exec rm -rf {} +
rm -rf "$rootfs/var/lib/apt/lists/"* "$rootfs/var/cache/apt/"*.bin "$rootfs/var/log/"*.log

echo "== docker import $base_tag"
tar --numeric-owner -C "$rootfs" -c . | docker import \
  --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin' \
  --change "LABEL cmb=1 cmb.image=base cmb.image-hash=$hash" - "$base_tag" >/dev/null

echo "== docker build $tag"
# The classic builder: FROM a local image needs no registry (BuildKit may not be installed as a plugin).
context="$scratch/context"
mkdir -p "$context"
cp -r "$here/files" "$context/files"
cp -r "$manuals" "$context/manuals"
DOCKER_BUILDKIT=0 docker build -q --force-rm -f "$here/Dockerfile.local" --build-arg "BASE=$base_tag" \
  --build-arg "CMB_IMAGE_HASH=$hash" --build-arg "CMB_IMAGE_VARIANT=$variant" -t "$tag" "$context" \
  >"$scratch/build.log" 2>&1 || { tail -30 "$scratch/build.log" >&2; exit 1; }
docker image rm "$base_tag" >/dev/null 2>&1 || true  # the final image keeps the layer; only the tag goes
if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect "$tag" --format '{{ .Id }}')" ]; then
  docker image rm "$previous" >/dev/null 2>&1 || true  # the superseded build, unless a container still uses it
fi

size=$(docker image inspect "$tag" --format '{{ .Size }}')
echo "built $tag (content hash $hash) in $(( $(date +%s) - start )) s, $(( size / 1024 / 1024 )) MiB"
