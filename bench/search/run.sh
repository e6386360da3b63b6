#!/usr/bin/env bash
# Catalogue search benchmark (issue 13): loads generated docs (realistic
# titles, descriptions, tags, categories, groups, licenses; 20% private)
# into the search index of SQLite and of PostgreSQL and prints, per
# backend: index build time, a single doc's reindex time, p50/p99 of a
# mixed query set (one-word, three-word, filters, facets with text, with a
# filter and over everything), page 1 against page 500 by cursor and by
# offset, and on PostgreSQL its own plain ranked full-text query on the
# same data as the reference, with the ratio.
#
#   bash bench/search/run.sh [-n 100000] [-backends sqlite,postgres] [-queries 300]
#   bash bench/search/run.sh -n 1000000
#   bash bench/search/run.sh -n 1000000 -backends postgres -keep   # then, to measure again without the build:
#   bash bench/search/run.sh -n 1000000 -backends postgres -reuse geopub_searchbench_...
#
# PostgreSQL: GEOPUB_BENCH_DATABASE_URL (default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable) names the
# server; a scratch database is created and dropped.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v go >/dev/null || { echo "run.sh: Go is not installed" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/searchbench" ./bench/search
"$bin/searchbench" "$@"
