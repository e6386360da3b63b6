#!/usr/bin/env bash
# Measures versiondiff.Compare on two 1,000,000-feature versions differing
# in 1% (a third deleted, a third updated, a third inserted), on the
# SQLite and the PostgreSQL store, beside the same diff computed by PostGIS
# (FULL OUTER JOIN of two plain tables on id, changed rows fetched) in the
# same run. Prints one table: median time of the rounds, changes found,
# peak RSS and Go heap of the process doing the diff, the server backends'
# private memory, and the ratio to PostGIS.
#
#   bash bench/diff/run.sh [-n 1000000] [-runs 3] [-only sqlite,postgres,postgis] [-cpuprofile PREFIX]
#
# Needs Go; PostGIS (and GDAL, which the store's packages link) come from
# scripts/install-test-deps.sh, which this script runs (as root it
# installs what is missing); and a PostgreSQL server with trust or URL
# credentials: GEOPUB_BENCH_DATABASE_URL, default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable; set it empty
# to skip PostgreSQL and PostGIS. Scratch databases are created and
# dropped. The server's memory is read from /proc, so it is reported only
# for a server on this machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
bash scripts/install-test-deps.sh >&2

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/diffbench" ./bench/diff
"$bin/diffbench" "$@"
