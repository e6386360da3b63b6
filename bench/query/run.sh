#!/usr/bin/env bash
# Measures the vector point query under load beside PostGIS and the HTTP
# floor (/healthz): a published layer of 1,000,000 points, radius 1000 m,
# max_results 10, concurrency 1 to 16. Prints req/s and p50/p99 per target
# and concurrency, and the index's memory.
#
#   bash bench/query/run.sh [-n 1000000] [-c 1,2,4,8,16] [-d 5s] [-db postgres://...] [-nethttp]
#
# HTTP load comes from a wrk-style client (persistent connections,
# pre-encoded requests) that leaves more of the 2 cores to the server;
# -nethttp uses Go's net/http client instead.
#
# PostGIS runs on GEOPUB_BENCH_DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable; empty skips
# it) in a scratch database that is dropped after; scripts/install-test-deps.sh
# installs PostGIS.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/querybench" ./bench/query
"$bin/querybench" "$@"
