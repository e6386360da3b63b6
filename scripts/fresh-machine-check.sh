#!/usr/bin/env bash
# Proves the README's two commands work on a fresh Debian machine.
#
# It builds a fresh Debian 12 root with debootstrap (minbase: no GDAL, no
# compiler, no PostgreSQL client, no Chromium, no Go caches), copies in
# this machine's Go toolchain and a fresh clone of the repository's HEAD,
# installs only what the README lists as prerequisites (make, git), and
# then, inside the root (chroot in its own mount and PID namespaces; the
# network is shared, so it reaches Debian's mirrors, the Go module proxy
# and loopback):
#
#   1. `make run`: must bring GDAL and a compiler itself and serve; the
#      check waits for /readyz to answer 200, then stops it;
#   2. `make test`: must bring Chromium, PostGIS and the GDAL tools itself
#      and pass. With --postgres, CI's way: scripts/ensure-postgres.sh must
#      install, create and start a PostgreSQL 15 cluster with PostGIS inside
#      the root (on port 5433, since the host's may answer on 5432), and
#      `make test` runs the PostgreSQL half against it too.
#
# Run as root on Debian (it installs debootstrap when missing):
#
#   sudo bash scripts/fresh-machine-check.sh [--postgres] [--keep]
#
# What it does not cover: a machine without Go (the README requires Go
# 1.26), other distributions than Debian 12, and starting PostgreSQL
# (scripts/ensure-postgres.sh does that in CI).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
postgres=0 keep=0
for a in "$@"; do
	case $a in
	--postgres) postgres=1 ;;
	--keep) keep=1 ;;
	*) echo "usage: $0 [--postgres] [--keep]" >&2; exit 2 ;;
	esac
done
[[ $(id -u) -eq 0 ]] || { echo "fresh-machine-check: run as root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { apt-get update -q && apt-get install -y -q --no-install-recommends debootstrap; }

root=$(mktemp -d /var/tmp/geopub-fresh.XXXXXX)
# A root file system: everyone may enter it (mktemp makes it 0700).
chmod 755 "$root"
cleanup() {
	for m in "$root/dev/pts" "$root/dev" "$root/proc" "$root/sys"; do umount -l "$m" 2>/dev/null || true; done
	if [[ $keep -eq 0 ]]; then rm -rf "$root"; else echo "fresh-machine-check: root kept at $root"; fi
}
trap cleanup EXIT
step() { printf '\n== fresh-machine-check: %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

step "debootstrap Debian 12 minbase into $root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.debootstrap.log" 2>&1 ||
	{ tail -20 "$root.debootstrap.log"; exit 1; }
rm -f "$root.debootstrap.log"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount -t sysfs sysfs "$root/sys"

step "copy Go $(go env GOVERSION) and a fresh clone of HEAD ($(git -C "$repo" rev-parse --short HEAD))"
cp -a "$(go env GOROOT)" "$root/usr/local/go"
git clone -q --no-hardlinks "$repo" "$root/src/geopub"

# Inside the root: a login-like environment with empty Go caches.
# Killing unshare kills everything in the root's PID namespace.
in_root=(unshare --mount --pid --fork --kill-child chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb
	PATH=/usr/local/go/bin:/root/go/bin:/usr/sbin:/usr/bin:/sbin:/bin
	GOTOOLCHAIN=local GOFLAGS=-buildvcs=false)
inside() { "${in_root[@]}" "$@"; }
inside bash -c '! command -v gcc && ! command -v pkg-config && ! command -v chromium && [ ! -e /usr/include/gdal ]' >/dev/null ||
	{ echo "fresh-machine-check: the new root is not fresh" >&2; exit 1; }

# The network's own trust: CA certificates the host added locally (an
# egress proxy's, a company's) are what any machine on this network has.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi

step "the README's prerequisites: make and git"
inside bash -c 'export DEBIAN_FRONTEND=noninteractive; apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends make git ca-certificates >/dev/null 2>&1 && update-ca-certificates >/dev/null'

port=$((20000 + RANDOM % 30000))
step "make run (GEOPUB_ADDR=127.0.0.1:$port)"
"${in_root[@]}" bash -c "cd /src/geopub && GEOPUB_ADDR=127.0.0.1:$port exec make run" >"$root/make-run.log" 2>&1 &
runner=$!
ready=0
for _ in $(seq 1800); do
	if curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then ready=1; break; fi
	kill -0 $runner 2>/dev/null || break
	sleep 1
done
# SIGKILL: unshare forwards softer signals to its child and waits; killed,
# it takes the whole PID namespace (--kill-child) with it.
kill -KILL $runner 2>/dev/null || true
wait $runner 2>/dev/null || true
grep -E '^(ensure-deps|geopub:)' "$root/make-run.log" || true
if [[ $ready -ne 1 ]]; then
	tail -40 "$root/make-run.log"
	echo "fresh-machine-check: FAILED: make run never answered /readyz" >&2
	exit 1
fi
echo "make run: /readyz answered 200"

step "make test$([[ $postgres -eq 1 ]] && echo " with GEOPUB_TEST_DATABASE_URL")"
env_pg=""
if [[ $postgres -eq 1 ]]; then
	# In the same command as the tests: the server lives in the root's PID
	# namespace, which ends with the command.
	env_pg="GEOPUB_PG_PORT=5433 bash scripts/ensure-postgres.sh &&
		GEOPUB_TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5433/postgres?sslmode=disable'"
fi
if ! inside bash -c "cd /src/geopub && $env_pg make test" >"$root/make-test.log" 2>&1; then
	grep -E '^(ensure-deps|ensure-postgres|test:|FAIL|---)' "$root/make-test.log" | tail -40 || true
	tail -30 "$root/make-test.log"
	echo "fresh-machine-check: FAILED: make test" >&2
	exit 1
fi
grep -E '^(ensure-deps|ensure-postgres|test:)' "$root/make-test.log" || true
sed -n '/^test summary/,$p' "$root/make-test.log"
step "PASSED: make run served and make test passed on a fresh Debian 12 root"
