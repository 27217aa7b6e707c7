#!/usr/bin/env bash
# Builds `msal` and `msal-emulator` for installing: optimized, with the Swift runtime and Foundation linked in
# (no shared Swift libraries to find or load at start-up). The programs land in .build/release/.
#
#   scripts/build-release.sh
#   Benchmarks/startup.py --bin .build/release --baseline     # start-up of `msal token` from a warm cache
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
swift build -c release --static-swift-stdlib --product msal
swift build -c release --static-swift-stdlib --product msal-emulator
echo "Built: $(swift build -c release --show-bin-path)/msal and msal-emulator"
