#!/usr/bin/env bash
# Makes sure a PostgreSQL server with PostGIS answers on 127.0.0.1:5432
# (GEOPUB_PG_PORT to choose another port) for the role the tests use (postgres, trust authentication on loopback), on
# Debian. .ci/run calls it before the suite.
#
# - A server that answers is used as it is.
# - Otherwise, as root: PostgreSQL 15 and PostGIS are installed with
#   apt-get, a cluster is created if there is none (with trust
#   authentication for local and loopback connections, which only this
#   machine can make), and it is started.
set -euo pipefail

host=127.0.0.1
port=${GEOPUB_PG_PORT:-5432}
answers() { psql -h "$host" -p "$port" -U postgres -d postgres -Atqc 'select 1' >/dev/null 2>&1; }

if command -v psql >/dev/null && answers; then
	echo "ensure-postgres: a server answers on $host:$port"
	exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
	echo "ensure-postgres: no PostgreSQL answers on $host:$port as user postgres; as root, run: bash $0" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [[ ! -x /usr/lib/postgresql/15/bin/postgres || ! -e /usr/share/postgresql/15/extension/postgis.control ]]; then
	apt-get update -q
	# Debian's package would create and start a cluster of its own (peer
	# and password authentication, port 5432); this script makes the one
	# the tests need instead.
	if [[ ! -e /usr/lib/postgresql/15/bin/postgres ]]; then
		apt-get install -y -q --no-install-recommends postgresql-common
		sed -i 's/^#\?\s*create_main_cluster\s*=.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf
	fi
	apt-get install -y -q --no-install-recommends postgresql-15 postgresql-15-postgis-3 postgresql-client-15
fi
# The version 15 cluster on $port: made here when there is none (named
# main, or geopub when a main cluster exists on another port).
on_port() { pg_lsclusters -h 2>/dev/null | awk -v p="$port" '$1 == 15 && $3 == p {print $2; exit}'; }
name=$(on_port)
if [[ -z "$name" ]]; then
	name=main
	if pg_lsclusters -h 2>/dev/null | awk '$1 == 15 && $2 == "main" {f = 1} END {exit !f}'; then name=geopub; fi
	# UTF-8 whatever the machine's locale (a minimal system has none: SQL_ASCII).
	pg_createcluster --port "$port" --start-conf auto --locale C.UTF-8 --encoding UTF8 15 "$name" -- --auth-local=trust --auth-host=trust
	echo "ensure-postgres: created cluster 15/$name on port $port (trust authentication on local and loopback)"
fi
pg_ctlcluster --skip-systemctl-redirect 15 "$name" start 2>/dev/null || true
for _ in $(seq 1 60); do
	if answers; then
		echo "ensure-postgres: PostgreSQL 15 answers on $host:$port"
		exit 0
	fi
	sleep 1
done
echo "ensure-postgres: PostgreSQL did not answer on $host:$port as user postgres with trust authentication" >&2
echo "ensure-postgres: an existing cluster is left as it is; give it trust for postgres on 127.0.0.1, or set GEOPUB_PG_PORT to a free port" >&2
pg_lsclusters >&2 || true
exit 1
