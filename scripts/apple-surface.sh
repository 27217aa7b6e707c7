#!/usr/bin/env bash
# The compile check of the Apple-only code (AppleSurface/README.md): builds the transcribed Apple SDK surface for
# `ios` and `macos` as the newest SDK generation declares it, builds the package against each with MSAL_APPLE_SURFACE
# (Swift 6, strict concurrency, warnings as errors, every file conditioned on `canImport` of an Apple framework
# included), runs Tests/MSALAppleTests on each, type-checks the MSAL module against the older generations (Xcode 16,
# Xcode 26.4) and in app-extension mode, and type-checks the seeds' iOS view controller, app delegate and scene
# delegate (Tests/AppleTutorial/) against the package. Usage: scripts/apple-surface.sh [ios|macos ...]  (default:
# both). Run from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swiftc >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swiftc ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(ios macos)

# SDK generations the package supports, oldest first: the defines each gives the surface. The newest is built, linked
# and tested; the others, and the app-extension mode, are type-checked.
#   xcode16: Xcode 16.x (iOS 18 / macOS 15 SDKs)
#   xcode26: Xcode 26.4 and later (iOS 26.4 / macOS 26.4 SDKs): main-actor presentation context provider, iOS 26
#            deprecations
#   sdk27:   the 27 SDKs: as xcode26, and ASWebAuthenticationSession's callback-scheme initializer deprecated
generation_defines() {
    case "$1" in
        xcode16) ;;
        xcode26) echo "-D SURFACE_SDK_26" ;;
        sdk27) echo "-D SURFACE_SDK_26 -D SURFACE_SDK_27" ;;
        *) echo "error: unknown SDK generation '$1'" >&2; return 2 ;;
    esac
}
newest=sdk27
# Objective-C frameworks whose closures Apple calls on its own threads: compiled in Swift 5 mode, as Swift imports
# Objective-C (implicitly @preconcurrency), so that Swift 6 clients get the run-time isolation checks a Mac has.
swift5_modules=" AuthenticationServices WebKit "

# build_surface PLATFORM GENERATION [appex] OUT
build_surface() {
    local platform="$1" generation="$2" mode="$3" out="$4" modules defines=()
    case "$platform" in
        ios) modules=(Darwin ObjectiveC Security UIKit AuthenticationServices WebKit) ;;
        macos) modules=(Darwin ObjectiveC Security AppKit AuthenticationServices WebKit); defines=(-D SURFACE_MACOS) ;;
        *) echo "error: unknown platform '$platform' (ios or macos)" >&2; return 2 ;;
    esac
    # shellcheck disable=SC2207
    defines+=($(generation_defines "$generation"))
    [ "$mode" = appex ] && defines+=(-D SURFACE_APP_EXTENSION)
    rm -rf "$out"
    mkdir -p "$out"
    for module in "${modules[@]}"; do
        local language=6
        case "$swift5_modules" in *" $module "*) language=5 ;; esac
        swiftc -parse-as-library -swift-version "$language" -warnings-as-errors -g -Onone -wmo \
            -module-name "$module" -I "$out" "${defines[@]}" \
            -emit-module -emit-module-path "$out/$module.swiftmodule" \
            -c AppleSurface/"$module"/*.swift -o "$out/code-$module.o"
    done
    ar rcs "$out/libMSALAppleSurface.a" "$out"/code-*.o
}

for variant in "${variants[@]}"; do
    echo "== Apple surface: $variant"
    built=".build/apple-surface/$variant"
    build_surface "$variant" "$newest" app "$built"
    # The package manager does not see the surface's modules change (they come in through -I): a stamp of the
    # surface's sources in the compile flags (Package.swift) makes the modules built on them rebuild when it changes.
    # (Touching the sources instead would disturb the fuzz targets' build, which test.sh runs meanwhile.)
    MSAL_APPLE_SURFACE_STAMP="$(find AppleSurface -name '*.swift' -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)"
    export MSAL_APPLE_SURFACE_STAMP
    MSAL_APPLE_SURFACE="$variant" swift build --traits Emulator --build-tests
    MSAL_APPLE_SURFACE="$variant" swift test --traits Emulator --skip-build
    # The MSAL module type-checked against the older generations, and for an app extension (built with
    # -application-extension, where UIApplication.shared is unavailable).
    for other in xcode16 xcode26 appex; do
        surface=".build/apple-surface/$variant-$other"
        flags=()
        if [ "$other" = appex ]; then
            build_surface "$variant" "$newest" appex "$surface"
            flags=(-application-extension)
        else
            build_surface "$variant" "$other" app "$surface"
        fi
        scripts/apple-surface-typecheck.py "$built" "$surface" "${flags[@]}"
        echo "MSAL type-checks against the $variant surface: $other."
    done
    if [ "$variant" = ios ]; then
        bin="$(MSAL_APPLE_SURFACE=ios swift build --traits Emulator --show-bin-path)"
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
        # The documents' Apple-only snippets (UIKit), against the package built on the surface.
        python3 scripts/check-snippets.py --apple ".build/apple-surface/ios"
    fi
done
