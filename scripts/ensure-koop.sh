#!/usr/bin/env bash
# Installs Koop (scripts/koop/package.json, versions pinned by its
# package-lock.json) into a cached folder for the ArcGIS source tests, and
# prints that folder. Idempotent: it returns at once when the same lock
# file was installed before. Needs node and npm; install scripts of the
# packages are not run.
#
#   GEOPUB_KOOP_DIR   the folder (default ~/.cache/geopub/koop)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=${GEOPUB_KOOP_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/geopub/koop}
stamp="$dir/.installed-$(sha256sum "$here/koop/package-lock.json" | cut -c1-16)"
if [[ -e $stamp ]]; then
	echo "$dir"
	exit 0
fi
if ! command -v npm >/dev/null; then
	echo "ensure-koop: node and npm are needed (apt-get install nodejs npm)" >&2
	exit 1
fi
mkdir -p "$dir"
rm -f "$dir"/.installed-*
cp "$here/koop/package.json" "$here/koop/package-lock.json" "$dir/"
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
touch "$stamp"
echo "$dir"
