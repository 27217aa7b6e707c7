#!/usr/bin/env bash
# Builds `msal` and `msal-emulator` for installing: optimized, with the Swift runtime and Foundation linked in
# (no shared Swift libraries to find or load at start-up). On Linux, when the toolchain has lld and the C library
# reads packed relocations (glibc 2.36 and later), they are linked by lld with `-z pack-relative-relocs`: the tens of
# thousands of relocations of a position-independent executable take a few kilobytes instead of over a megabyte, so
# `msal` starts faster and touches less memory, with ASLR kept; and the functions `msal` runs at start-up are placed
# together (scripts/msal-startup.order), so starting it maps a few pages of code instead of hundreds of windows
# spread over the whole program. The programs land in .build/release/.
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
if [ "$(uname -s)" = Linux ] && [ -x "$(dirname "$(command -v swift)")/ld.lld" ]; then
    glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
    if [ -n "$glibc" ] && [ "$(printf '%s\n2.36\n' "$glibc" | sort -V | head -1)" = 2.36 ]; then
        flags+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
        # The functions `msal token` runs at start-up, side by side (Benchmarks/startup_order.py writes the list).
        if [ -f scripts/msal-startup.order ]; then
            flags+=(-Xlinker "--symbol-ordering-file=$PWD/scripts/msal-startup.order" -Xlinker --no-warn-symbol-ordering)
        fi
    fi
fi
case "${1:-}" in
    "") ;;
    --no-pie) flags+=(-Xlinker -no-pie) ;;
    *) echo "usage: scripts/build-release.sh [--no-pie]" >&2; exit 64 ;;
esac
swift build --traits Tools "${flags[@]}" --product msal
swift build --traits Tools "${flags[@]}" --product msal-emulator
echo "Built: $(swift build --traits Tools -c release --show-bin-path)/msal and msal-emulator"
