#!/usr/bin/env bash
# Drives issue 24's mixed load (2/3 OGC API items?bbox pages, 1/3 comment
# writes, /readyz polled) at a Geopub server child on SQLite and on a
# scratch PostgreSQL database, and prints req/s, latency percentiles per
# kind and every failure.
#
#   bash bench/mixload/run.sh [-n 400000] [-c 150] [-d 60s] [-pg URL]
#
# PostgreSQL runs on GEOPUB_BENCH_DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable; -pg '' skips it).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/mixload" ./bench/mixload
"$bin/mixload" "$@"
