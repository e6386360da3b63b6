#!/usr/bin/env bash
# Refreshes the vendored MapLibre GL JS files from the npm registry.
#
# The files in this folder are copied byte for byte from this npm package:
#   maplibre-gl@4.7.1   dist/maplibre-gl.js, dist/maplibre-gl.css, LICENSE.txt
# npm checks the package archive against the registry's integrity hash;
# SHA256SUMS then pins the copied files, and TestVendoredChecksums fails
# when an embedded file no longer matches it.
#
# To move to another version, change the pin below, run this script, then
# run `go test ./web/mappreview/ ./web/htmlview/` and commit.
set -euo pipefail

MAPLIBRE_VERSION=4.7.1

dest="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
npm pack --silent "maplibre-gl@${MAPLIBRE_VERSION}" >/dev/null
mkdir pkg
tar -xzf "maplibre-gl-${MAPLIBRE_VERSION}.tgz" -C pkg --strip-components=1

cp pkg/dist/maplibre-gl.js pkg/dist/maplibre-gl.css "$dest/"
{
	printf '==== maplibre-gl@%s ====\n\n' "$(node -p "require('./pkg/package.json').version")"
	cat pkg/LICENSE.txt
} >"$dest/LICENSE.txt"

cd "$dest"
sha256sum maplibre-gl.js maplibre-gl.css LICENSE.txt >SHA256SUMS
echo "updated assets in $dest"
