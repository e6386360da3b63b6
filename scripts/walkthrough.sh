#!/usr/bin/env bash
# Runs the walkthrough as written: every fenced block preceded by the line
# "<!-- walkthrough -->" in docs/walkthrough.md, in order, in one bash
# session, against a fresh server on a free loopback port, then checks the
# answers. The page's text is the script, so the two cannot drift.
#
#   bash scripts/walkthrough.sh            # prints each block's output
#
# Needs what the walkthrough names: Go (and GDAL's headers) to build, curl, jq
# and gdal_create. curl fails on HTTP errors here (--fail-with-body), so a
# step that answers 4xx or 5xx stops the run; the whole run is bounded by
# GEOPUB_WALKTHROUGH_TIMEOUT seconds (default 300).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A free port on loopback.
port=""
for _ in $(seq 50); do
	p=$((20000 + RANDOM % 30000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
		port=$p
		break
	fi
done
[[ -n "$port" ]] || { echo "walkthrough: no free port" >&2; exit 1; }

page=docs/walkthrough.md
blocks=$(awk '
	/^<!-- walkthrough -->$/ { want = 1; next }
	want && /^```sh$/ { inblock = 1; want = 0; n++; printf "echo; echo \"== walkthrough block %d\" >&2\n", n; next }
	inblock && /^```$/ { inblock = 0; next }
	inblock { print; next }
	{ want = 0 }
' "$page")
count=$(grep -c '^<!-- walkthrough -->$' "$page")
[[ $count -gt 0 ]] || { echo "walkthrough: no walkthrough blocks in $page" >&2; exit 1; }

cat >"$work/run.sh" <<PRELUDE
set -euo pipefail
export GEOPUB_ADDR=127.0.0.1:$port GEOPUB_URL=http://127.0.0.1:$port TMPDIR=$work AWS_EC2_METADATA_DISABLED=true
# Fail on HTTP errors, keeping the body, unless the block asks for --fail.
curl() {
	local a
	for a in "\$@"; do
		case \$a in -f | -sf | --fail | --fail-with-body) command curl "\$@"; return ;; esac
	done
	command curl --fail-with-body "\$@"
}
trap 'kill \$(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true' EXIT
PRELUDE
printf '%s\n' "$blocks" >>"$work/run.sh"
cat >>"$work/run.sh" <<'CHECKS'
echo; echo "== checks of the walkthrough's answers" >&2
check() { # description, command...
	local what=$1
	shift
	if ! "$@" >/dev/null; then
		echo "walkthrough: FAILED: $what" >&2
		exit 1
	fi
	echo "ok: $what" >&2
}
Q=$GEOPUB_URL/services/query/v1
at='x=174.7762&y=-41.2784'
group_range() { curl -si "$API/groups/?q=land" -H "$AUTH" | grep -qi '^X-Resource-Range: 0-1/1'; }
vector_roads() {
	curl -s "$Q/vector.json?key=$KEY&layer=$LAYER&$at&radius=1000&max_results=10" |
		jq -e --arg l "$LAYER" '.vectorQuery.layers[$l].features | map(.properties.name) == ["Lambton Quay", "Willis Street"]'
}
raster_value() { curl -s "$Q/raster.json?key=$KEY&layer=$GRID&$at" | jq -e --arg l "$GRID" '.rasterQuery.layers[$l].bands[0].value == 12.5'; }
set_members() { curl -s "$Q/set.json?key=$KEY&set=$SET&$at" | jq -e 'map(.type) == ["vector", "grid"] and all(.[]; has("results"))'; }
publishes() { curl -s "$API/notifications/?after=0" -H "$AUTH" | jq -e 'map(select(.kind == "publish.completed")) | length == 3'; }
export_zip() { [[ $(head -c 2 wellington.zip) == PK ]] && grep -aq '[.]gpkg' wellington.zip && grep -aq '[.]tif' wellington.zip; }
graphql_me() {
	curl -s "$GEOPUB_URL/graphql" -H "$AUTH" -H 'Content-Type: application/json' -d '{"query": "{ me { email } }"}' |
		jq -e '.data.me.email == "admin@example.com"'
}
check "the group list names its range" group_range
check "the vector query finds both roads" vector_roads
check "the raster query reads 12.5" raster_value
check "the set query answers for both members" set_members
check "three publishes were notified" publishes
check "GraphQL knows the token's owner" graphql_me
check "the export's zip holds a GeoPackage and a GeoTIFF" export_zip
echo "walkthrough: all blocks ran and every check passed" >&2
CHECKS

echo "walkthrough: $count blocks from $page, server at 127.0.0.1:$port"
if ! timeout "${GEOPUB_WALKTHROUGH_TIMEOUT:-300}" bash "$work/run.sh" >"$work/out.log" 2>&1; then
	cat "$work/out.log"
	echo "walkthrough: FAILED (output above)" >&2
	exit 1
fi
grep -v '^{"time":' "$work/out.log" || true
