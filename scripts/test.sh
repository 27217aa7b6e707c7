#!/usr/bin/env bash
# Runs every test of the package:
#   1. the Swift test suites (library, emulator, seed compatibility), which also drive Microsoft's MSAL for
#      Python as the token-cache peer;
#   2. the emulator fidelity suite: MSAL for Python's real flows against `msal emulator` over HTTPS.
# It installs what it needs itself: the Python peer (msal, pytest) into .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r Tests/python/requirements.txt
export MSAL_PYTHON="$PWD/.venv/bin/python"
export MSAL_INTEROP_REQUIRED=1

swift build --build-tests
swift test --skip-build "$@"

MSAL_EMULATOR_BIN="$(swift build --show-bin-path)/msal" \
    .venv/bin/python -m pytest -q Tests/python -W ignore::UserWarning
