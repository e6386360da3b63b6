#!/usr/bin/env bash
# Builds a PMTiles archive of 1,000,000 points to zoom 14 from the vector
# tile service and, beside it, GETs every one of its tiles from the tile
# service over HTTP (concurrency 2). Prints wall times and peak RSS.
#
#   bash bench/tilearchive/run.sh [-points 1000000] [-maxzoom 14] [-c 2] [-work DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/tilearchivebench" ./bench/tilearchive
"$bin/tilearchivebench" "$@"
