#!/usr/bin/env bash
# Builds `msal` and `msal-emulator` for installing: optimized, with the Swift runtime and Foundation linked in
# (no shared Swift libraries to find or load at start-up). The programs land in .build/release/.
#
#   scripts/build-release.sh             # position-independent executables (ASLR), the default
#   scripts/build-release.sh --no-pie    # fixed-address executables: faster start and less memory, no ASLR
#   Benchmarks/startup.py --bin .build/release --baseline     # start-up of `msal token` from a warm cache
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
flags=(-c release --static-swift-stdlib)
case "${1:-}" in
    "") ;;
    --no-pie) flags+=(-Xlinker -no-pie) ;;
    *) echo "usage: scripts/build-release.sh [--no-pie]" >&2; exit 64 ;;
esac
swift build "${flags[@]}" --product msal
swift build "${flags[@]}" --product msal-emulator
echo "Built: $(swift build -c release --show-bin-path)/msal and msal-emulator"
