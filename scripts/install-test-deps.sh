#!/usr/bin/env bash
# Installs the system packages that Geopub's tests need, on Debian, as root.
# Idempotent: it returns at once when everything is already there.
#
#   chromium  headless browser for internal/browsertest (GraphiQL tests)
#
# Add a package by appending it to PACKAGES with the binary that proves it is
# installed to CHECKS (same position).
set -euo pipefail

PACKAGES=(chromium)
CHECKS=(/usr/bin/chromium)

missing=()
for i in "${!PACKAGES[@]}"; do
	if [[ ! -x "${CHECKS[$i]}" ]]; then
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
