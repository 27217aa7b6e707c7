#!/usr/bin/env bash
# The compile check of the Apple-only code (AppleSurface/README.md): builds the transcribed Apple SDK surface for
# `ios` and `macos`, builds the package against each with MSAL_APPLE_SURFACE (Swift 6, strict concurrency, every
# file conditioned on `canImport` of an Apple framework included), runs Tests/MSALAppleTests on each, and
# type-checks the seeds' iOS view controller, app delegate and scene delegate (Tests/AppleTutorial/) against the
# package. Usage: scripts/apple-surface.sh [ios|macos ...]  (default: both). Run from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swiftc >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swiftc ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(ios macos)

build_surface() {
    local variant="$1" out=".build/apple-surface/$1" modules defines=()
    case "$variant" in
        ios) modules=(ObjectiveC Security UIKit AuthenticationServices WebKit) ;;
        macos) modules=(ObjectiveC Security AppKit AuthenticationServices WebKit); defines=(-D SURFACE_MACOS) ;;
        *) echo "error: unknown variant '$variant' (ios or macos)" >&2; return 2 ;;
    esac
    rm -rf "$out"
    mkdir -p "$out"
    for module in "${modules[@]}"; do
        swiftc -parse-as-library -swift-version 6 -warnings-as-errors -g -Onone -wmo \
            -module-name "$module" -I "$out" "${defines[@]}" \
            -emit-module -emit-module-path "$out/$module.swiftmodule" \
            -c AppleSurface/"$module"/*.swift -o "$out/code-$module.o"
    done
    ar rcs "$out/libMSALAppleSurface.a" "$out"/code-*.o
}

for variant in "${variants[@]}"; do
    echo "== Apple surface: $variant"
    build_surface "$variant"
    MSAL_APPLE_SURFACE="$variant" swift build --build-tests
    MSAL_APPLE_SURFACE="$variant" swift test --skip-build
    if [ "$variant" = ios ]; then
        bin="$(MSAL_APPLE_SURFACE=ios swift build --show-bin-path)"
        module_maps=()
        while IFS= read -r map; do module_maps+=(-Xcc "-fmodule-map-file=$map"); done \
            < <(find "$bin" -maxdepth 2 -name module.modulemap)
        includes=()
        while IFS= read -r dir; do includes+=(-Xcc "-I$dir"); done \
            < <(find .build/checkouts Sources -type d -name include 2>/dev/null)
        # The seeds' code uses @objc and #selector: type-checked (never compiled to code) with Objective-C interop
        # on, in Swift 5 mode as the tutorial was written; the Swift 6 view controller with warnings as errors.
        swiftc -typecheck -swift-version 5 -Xfrontend -enable-objc-interop -I "$bin/Modules" -I "$bin" \
            -I ".build/apple-surface/ios" "${module_maps[@]}" "${includes[@]}" Tests/AppleTutorial/Swift5/*.swift
        swiftc -typecheck -swift-version 6 -warnings-as-errors -I "$bin/Modules" -I "$bin" \
            -I ".build/apple-surface/ios" "${module_maps[@]}" "${includes[@]}" Tests/AppleTutorial/Swift6/*.swift
        echo "The seeds' iOS view controller type-checks against the package."
    fi
done
