#!/usr/bin/env bash
# Runs Microsoft's MSAL for Python against the identity platform emulator (Tests/python).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -c "import msal, pytest" 2>/dev/null || .venv/bin/pip install --quiet "msal==1.39.0" pytest requests
swift build --traits Tools --product msal-emulator
swift build --traits Tools --product msal
MSAL_EMULATOR_BIN="$(swift build --traits Tools --show-bin-path)/msal-emulator" exec .venv/bin/python -m pytest -q Tests/python -W ignore::UserWarning "$@"
