#!/usr/bin/env bash
# Measures the vector point query under load beside PostGIS and the HTTP
# floor (/healthz): a published layer of 1,000,000 points, radius 1000 m,
# max_results 10, concurrency 1 to 16. Prints req/s and p50/p99 per target,
# concurrency and round, their medians, and the index's memory.
#
#   bash bench/query/run.sh [-n 1000000] [-c 1,2,4,8,16] [-d 5s] [-rounds 3]
#                           [-area nz|region] [-pgclient pgbench|pgx] [-db postgres://...] [-nethttp]
#
# -area nz spreads the points over a box the size of New Zealand (2 within
# a query's radius); -area region over 2° × 2° (80 within it).
#
# The targets run in interleaved rounds (every target at every concurrency,
# then again), so that drift in the machine's speed touches them alike; the
# ratios printed are medians of each round's ratio.
#
# HTTP load comes from a wrk-style client (persistent connections,
# pre-encoded requests) that leaves more of the 2 cores to the server;
# -nethttp uses Go's net/http client instead. PostGIS is loaded by pgbench
# (prepared statements), its lightest client; -pgclient pgx uses a Go pgx
# pool instead.
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
