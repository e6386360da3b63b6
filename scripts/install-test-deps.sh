#!/usr/bin/env bash
# Installs the system packages that Geopub's tests need, on Debian, as root
# (`make deps`). Kept for older instructions: scripts/ensure-deps.sh holds
# the list.
set -euo pipefail
exec bash "$(dirname "$0")/ensure-deps.sh" test
