#!/usr/bin/env bash
# Compares Geopub's import path with ogr2ogr on 1,000,000 generated points:
# ogr2ogr into a GeoPackage and into PostGIS, ingest.ReadFeatures +
# reprojection + features.Writer into SQLite and PostgreSQL. Prints one
# table: wall time, rows/s, peak RSS (and Go heap for our path).
#
#   bash bench/import/run.sh [-n 1000000] [-only gpkg,postgis,sqlite,postgres] [-cpuprofile PREFIX]
#
# Needs the README's toolchain (Go, GDAL: `bash scripts/install-test-deps.sh`
# as root installs GDAL, ogr2ogr and PostGIS) and a PostgreSQL server with
# trust or URL credentials: GEOPUB_BENCH_DATABASE_URL, default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable; set it empty
# to skip PostgreSQL. Scratch databases are created and dropped.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
command -v ogr2ogr >/dev/null || { echo "run.sh: ogr2ogr missing: run 'bash scripts/install-test-deps.sh' as root" >&2; exit 1; }
if [[ ! -e /usr/share/postgresql/15/extension/postgis.control ]] && ! ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1; then
	echo "run.sh: PostGIS not found locally; the ogr2ogr → PostGIS run will fail unless the server has it (scripts/install-test-deps.sh installs postgresql-15-postgis-3)" >&2
fi

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/importbench" ./bench/import
"$bin/importbench" "$@"
