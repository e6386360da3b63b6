#!/usr/bin/env bash
# Compares Geopub's import path with ogr2ogr on 1,000,000 generated points:
# ogr2ogr into a GeoPackage and into PostGIS, ingest.Records +
# reprojection + importing.RowEncoder + featurerows.Writer into SQLite and
# PostgreSQL. Prints one
# table: wall time, rows/s, peak RSS (and Go heap for our path).
#
#   bash bench/import/run.sh [-n 1000000] [-only gpkg,postgis,sqlite,postgres] [-cpuprofile PREFIX]
#
# Needs Go; GDAL, ogr2ogr and PostGIS come from scripts/install-test-deps.sh,
# which this script runs (as root it installs what is missing); and a
# PostgreSQL server with
# trust or URL credentials: GEOPUB_BENCH_DATABASE_URL, default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable; set it empty
# to skip PostgreSQL. Scratch databases are created and dropped.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
# GDAL (ogr2ogr, and the library our path links) and PostGIS: the project's
# installer returns at once when they are there, installs them as root,
# and otherwise says what is missing.
bash scripts/install-test-deps.sh >&2

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/importbench" ./bench/import
"$bin/importbench" "$@"
