#!/usr/bin/env bash
# Print the Debian archive (main) or its security archive (security) this machine's apt already uses, read the way
# apt reads its sources (sources.list, sources.list.d/*.list and deb822 *.sources). CMB_DEBIAN_MIRROR and
# CMB_DEBIAN_SECURITY_MIRROR override; with neither an override nor an entry, say so and exit 1.
#
# usage: deploy/image/debian-mirror.sh main|security
set -euo pipefail
case "${1:-}" in
  main) var=CMB_DEBIAN_MIRROR label=Debian ;;
  security) var=CMB_DEBIAN_SECURITY_MIRROR label=Debian-Security ;;
  *) echo "usage: $0 main|security" >&2; exit 2 ;;
esac
uri="${!var:-}"
if [ -z "$uri" ] && command -v apt-get >/dev/null; then
  # The label comes from each archive's Release file, so entries of other vendors never match.
  uri="$(apt-get indextargets --format $'$(TARGET_OF)\t$(LABEL)\t$(REPO_URI)' 2>/dev/null \
    | awk -F'\t' -v label="$label" '$1 == "deb" && $2 == label { print $3; exit }')" || true
fi
if [ -z "$uri" ]; then
  echo "$0: no $label archive in this machine's apt configuration (run apt-get update if its lists are missing);" \
    "set $var to a Debian mirror" >&2
  exit 1
fi
echo "${uri%/}"
