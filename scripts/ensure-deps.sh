#!/usr/bin/env bash
# Makes sure the system packages a make target needs are here, on Debian.
# Idempotent: it returns at once when everything is present. As root it
# installs what is missing with apt-get; otherwise it stops at once and
# prints the one command that installs it.
#
#   bash scripts/ensure-deps.sh run    # building and running geopub (GDAL and libdeflate for cgo)
#   bash scripts/ensure-deps.sh test   # the whole test suite (adds Chromium, feedparser for the Atom feeds, PostGIS, Samba, 7z, GDAL tools, HAProxy for the scale-out test, jq and curl for the walkthrough)
#
# Each package is paired with the file that proves it is installed.
set -euo pipefail

want=${1:-run}
# package=file that proves it
run_pkgs=(
	"gcc=/usr/bin/gcc"
	"g++=/usr/bin/g++"
	"pkg-config=/usr/bin/pkg-config"
	"libgdal-dev=/usr/include/gdal/gdal.h"
	"libdeflate-dev=/usr/include/libdeflate.h"
)
test_pkgs=(
	"chromium=/usr/bin/chromium"
	"gdal-bin=/usr/bin/ogr2ogr"
	"p7zip-full=/usr/bin/7z"
	"jq=/usr/bin/jq"
	"curl=/usr/bin/curl"
	"python3-owslib=/usr/lib/python3/dist-packages/owslib/ogcapi/features.py"
	"python3-feedparser=/usr/lib/python3/dist-packages/feedparser/__init__.py"
	"python3-rdflib=/usr/lib/python3/dist-packages/rdflib/__init__.py"
	"postgresql-15-postgis-3=/usr/share/postgresql/15/extension/postgis.control"
	"samba=/usr/sbin/smbd"
	"cgi-mapserver=/usr/lib/cgi-bin/mapserv"
	"mapserver-bin=/usr/bin/map2img"
	"haproxy=/usr/sbin/haproxy"
)
case "$want" in
run) pkgs=("${run_pkgs[@]}") ;;
test) pkgs=("${run_pkgs[@]}" "${test_pkgs[@]}") ;;
*)
	echo "usage: $0 run|test" >&2
	exit 2
	;;
esac

missing=()
for entry in "${pkgs[@]}"; do
	[[ -e "${entry#*=}" ]] || missing+=("${entry%%=*}")
done
if [[ ${#missing[@]} -eq 0 ]]; then
	exit 0
fi

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
	echo "geopub: missing system packages for '$want': ${missing[*]}" >&2
	echo "install them with:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
	exit 1
fi
echo "ensure-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
echo "ensure-deps: installed ${missing[*]}"
