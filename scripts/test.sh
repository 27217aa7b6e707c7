#!/usr/bin/env bash
# Runs every test: builds the package, installs the Python peer (Microsoft's MSAL for Python) into .venv, and
# runs the Swift test suites, which drive the peer where interoperability is checked.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

# Python peer for the token-cache interoperability tests.
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r Tests/python/requirements.txt
export MSAL_PYTHON="$PWD/.venv/bin/python"
export MSAL_INTEROP_REQUIRED=1

swift build --build-tests
swift test --skip-build "$@"
