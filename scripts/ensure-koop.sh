#!/usr/bin/env bash
# Installs Koop for the ArcGIS source tests and prints its folder
# (scripts/ensure-npm.sh koop; GEOPUB_KOOP_DIR overrides the folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [[ -n ${GEOPUB_KOOP_DIR:-} ]]; then
	GEOPUB_NPM_CACHE=$(dirname "$GEOPUB_KOOP_DIR")
	export GEOPUB_NPM_CACHE
fi
exec bash "$here/ensure-npm.sh" koop
