#!/usr/bin/env bash
# Compares Geopub's export writer (exportfile.WriteVector over
# features.ReadRaw) with ogr2ogr on 1,000,000 points and 100,000 polygons:
# GeoPackage and FlatGeobuf, whole and cropped to the middle quarter of the
# extent and reprojected to EPSG:2193; ogr2ogr reads a GeoPackage copy of
# the data and a PostGIS table. Prints wall time, the ratio to ogr2ogr and
# peak memory per run.
#
#   bash bench/export/run.sh [-points 1000000] [-polygons 100000] [-only points-gpkg-whole,...] [-cpuprofile PREFIX]
#
# PostgreSQL: GEOPUB_BENCH_DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) names the
# server; set it empty to skip PostGIS and the PostgreSQL store. Scratch
# databases are created and dropped.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
bash scripts/install-test-deps.sh >&2
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/exportbench" ./bench/export
"$bin/exportbench" "$@"
