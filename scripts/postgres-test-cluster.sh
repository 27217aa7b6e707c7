#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL cluster for the PostgreSQL token cache's tests and benchmark:
#   scripts/postgres-test-cluster.sh swift test --traits Tools --filter MSALPostgresCacheTests
# Installs Debian's postgresql when it is missing (apt-get, with sudo when not root), creates a cluster with
# initdb in a temporary directory (trust authentication, listening on 127.0.0.1 on a free port, its unix socket in
# that directory), exports MSAL_POSTGRES_HOST, _PORT, _USER, _DATABASE and MSAL_POSTGRES_URL, runs the command, and
# stops and removes the cluster when it exits. As root, the cluster runs as the `postgres` user (initdb refuses
# root). Exits with the command's status.
set -euo pipefail

install_postgres() {
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && return 0
    "$(dirname "$0")/apt-install.sh" "the PostgreSQL token cache tests" postgresql
}

if ! install_postgres; then
    echo "error: postgresql could not be installed; the PostgreSQL token cache tests will fail" >&2
    exec "$@"
fi

bindir="$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -n 1)")"
dir="$(mktemp -d /tmp/msal-pg.XXXXXX)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"

as_owner=()
if [ "$(id -u)" = "0" ]; then
    chown postgres "$dir"
    as_owner=(runuser -u postgres --)
fi
chmod 700 "$dir"

cleanup() {
    "${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM

"${as_owner[@]}" "$bindir/initdb" -D "$dir/data" -U msal --auth=trust --encoding=UTF8 --no-instructions >/dev/null
"${as_owner[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=300 -c fsync=off" start >/dev/null

export MSAL_POSTGRES_HOST=127.0.0.1
export MSAL_POSTGRES_PORT="$port"
export MSAL_POSTGRES_USER=msal
export MSAL_POSTGRES_DATABASE=postgres
export MSAL_POSTGRES_URL="postgres://msal@127.0.0.1:$port/postgres"
echo "PostgreSQL test cluster on 127.0.0.1:$port ($dir)" >&2

set +e
"$@"
status=$?
set -e
exit $status
