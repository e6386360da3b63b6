#!/usr/bin/env bash
# Installs one of the project's node tools (scripts/NAME/package.json,
# versions pinned by its package-lock.json) into a cached folder, and
# prints that folder. Idempotent: it returns at once when the same lock
# file was installed before. Needs node and npm; install scripts of the
# packages are not run.
#
#   bash scripts/ensure-npm.sh koop                # Koop, for the ArcGIS source tests
#   bash scripts/ensure-npm.sh webhook-verifier    # standardwebhooks, for the webhook tests
#   bash scripts/ensure-npm.sh esri-clients        # arcgis-rest-js and Esri Leaflet, for the ArcGIS door tests
#   bash scripts/ensure-npm.sh pmtiles-reader      # the PMTiles reader, for the tile archive tests
#
#   GEOPUB_NPM_CACHE   the parent folder (default ~/.cache/geopub)
set -euo pipefail

name=${1:?usage: $0 koop|webhook-verifier|esri-clients|pmtiles-reader}
here=$(cd "$(dirname "$0")" && pwd)
src="$here/$name"
if [[ ! -f $src/package-lock.json ]]; then
	echo "ensure-npm: no scripts/$name/package-lock.json" >&2
	exit 2
fi
dir=${GEOPUB_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/geopub}/$name
stamp="$dir/.installed-$(sha256sum "$src/package-lock.json" | cut -c1-16)"
if [[ -e $stamp ]]; then
	echo "$dir"
	exit 0
fi
if ! command -v npm >/dev/null; then
	echo "ensure-npm: node and npm are needed (apt-get install nodejs npm)" >&2
	exit 1
fi
mkdir -p "$dir"
rm -f "$dir"/.installed-*
cp "$src"/package.json "$src"/package-lock.json "$dir/"
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
touch "$stamp"
echo "$dir"
