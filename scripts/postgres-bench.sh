#!/usr/bin/env bash
# The PostgreSQL token cache benchmark against a throw-away cluster (scripts/postgres-test-cluster.sh):
#   scripts/postgres-bench.sh                      # 4 processes x 64 tasks, 100,000 users
#   scripts/postgres-bench.sh --users 10000 --expired 200
# Builds msal-postgres-bench in release mode, then runs it; extra arguments go to `msal-postgres-bench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
swift build --traits Tools -c release --product msal-postgres-bench
bin="$(swift build --traits Tools -c release --show-bin-path)/msal-postgres-bench"
exec scripts/postgres-test-cluster.sh "$bin" run "$@"
