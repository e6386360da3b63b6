#!/usr/bin/env bash
# Measures Geopub's vector tiles (zooms 8, 12, 14; cold and cached) and
# OGC API Features items pages at concurrency 8 over 1,000,000 points and
# 100,000 polygons, on the SQLite and the PostgreSQL store, beside
# PostGIS's own ST_AsMVT on the same tiles, MapServer's OGC API Features
# on the same pages and /healthz. Prints every run, the ratios and whether
# each target holds.
#
#   bash bench/tiles/run.sh [-work DIR] [-d 5s] [-tiles 100] [-cpuprofile PREFIX]
#
# PostgreSQL: GEOPUB_BENCH_DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) names the
# server; set it empty to measure the SQLite store alone. Scratch
# databases are created and dropped.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
bash scripts/install-test-deps.sh >&2
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/tilesbench" ./bench/tiles
"$bin/tilesbench" "$@"
