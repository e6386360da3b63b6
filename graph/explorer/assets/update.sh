#!/usr/bin/env bash
# Refreshes the vendored GraphiQL explorer assets from the npm registry.
#
# The files in this folder are copied byte for byte from these npm packages:
#   graphiql@3.8.3    graphiql.min.js, graphiql.min.css (UMD build)
#   react@18.3.1      umd/react.production.min.js
#   react-dom@18.3.1  umd/react-dom.production.min.js
# LICENSES.txt holds the license texts of the three packages.
#
# To move to other versions, change the pins below, run this script, then run
# `go test ./graph/explorer/ ./internal/browsertest/` and commit.
set -euo pipefail

GRAPHIQL_VERSION=3.8.3
REACT_VERSION=18.3.1

dest="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
npm pack --silent "graphiql@${GRAPHIQL_VERSION}" "react@${REACT_VERSION}" "react-dom@${REACT_VERSION}" >/dev/null
for tgz in "graphiql-${GRAPHIQL_VERSION}.tgz" "react-${REACT_VERSION}.tgz" "react-dom-${REACT_VERSION}.tgz"; do
	pkg="${tgz%-*}"
	mkdir "$pkg"
	tar -xzf "$tgz" -C "$pkg" --strip-components=1
done

cp graphiql/graphiql.min.js graphiql/graphiql.min.css "$dest/"
cp react/umd/react.production.min.js "$dest/"
cp react-dom/umd/react-dom.production.min.js "$dest/"

{
	for pkg in graphiql react react-dom; do
		printf '==== %s@%s ====\n\n' "$pkg" "$(node -p "require('./$pkg/package.json').version")"
		cat "$pkg/LICENSE"
		printf '\n'
	done
} >"$dest/LICENSES.txt"

echo "updated assets in $dest"
