#!/usr/bin/env bash
# Installs the system packages that Geopub's tests need, on Debian, as root.
# Idempotent: it returns at once when everything is already there.
#
#   chromium     headless browser for internal/browsertest (GraphiQL tests)
#   libgdal-dev  GDAL headers and library for godal (cgo)
#   pkg-config   how godal finds GDAL (#cgo pkg-config: gdal)
#   gdal-bin     GDAL command-line tools (ogr2ogr, gdalinfo) for debugging
#   p7zip-full   7z, used by internal/ingest tests to build a .7z fixture
#   postgresql-15-postgis-3  PostGIS, for the ogr2ogr → PostGIS run of bench/import
#
# Add a package by appending it to PACKAGES with the file that proves it is
# installed to CHECKS (same position).
set -euo pipefail

PACKAGES=(chromium libgdal-dev pkg-config gdal-bin p7zip-full postgresql-15-postgis-3)
CHECKS=(/usr/bin/chromium /usr/include/gdal/gdal.h /usr/bin/pkg-config /usr/bin/ogr2ogr /usr/bin/7z /usr/share/postgresql/15/extension/postgis.control)

missing=()
for i in "${!PACKAGES[@]}"; do
	if [[ ! -e "${CHECKS[$i]}" ]]; then
		missing+=("${PACKAGES[$i]}")
	fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
	echo "install-test-deps: all present (${PACKAGES[*]})"
	exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
	echo "install-test-deps: run as root to install: ${missing[*]}" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-test-deps: installed ${missing[*]}"
