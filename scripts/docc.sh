#!/usr/bin/env bash
# Builds the DocC archives of MSALCore (Sources/MSALCore/MSAL.docc: the API and the articles) and of MSAL (the
# umbrella apps import) with warnings as errors, from the modules the last `swift build --traits Tools --build-tests`
# made: their symbol graphs are read from the built modules (swift-symbolgraph-extract, with the options the DocC
# plugin asks the package manager for), then `docc convert` runs as the plugin runs it. The same archives as
# `swift package generate-documentation --target MSALCore --target MSAL`, whose own build would compile both modules
# again without testability (and the next test build would compile them back).
#   scripts/docc.sh        # .build/docc/MSALCore.doccarchive and .build/docc/MSAL.doccarchive; exits 1 on a warning
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

bin="$(swift build --traits Tools --show-bin-path)"
triple="$(basename "$(dirname "$bin")")"
# The C modules the Swift modules import (module maps of this build, include folders of this package and its
# dependencies), as the package manager passes them.
flags=(-target "$triple" -I "$bin/Modules" -I "$bin")
while IFS= read -r map; do flags+=(-Xcc "-fmodule-map-file=$map"); done \
    < <(find "$bin" -maxdepth 2 -name module.modulemap)
while IFS= read -r dir; do flags+=(-Xcc "-I$dir"); done \
    < <(find .build/checkouts Sources -type d -name include 2>/dev/null)

out=".build/docc"
for module in MSALCore MSAL; do
    [ -f "$bin/Modules/$module.swiftmodule" ] || { echo "error: $module is not built (swift build --traits Tools --build-tests)" >&2; exit 1; }
    graphs="$out/symbol-graphs/$module"
    rm -rf "$graphs" "$out/$module.doccarchive"
    mkdir -p "$graphs"
    # Public symbols, inherited documentation and synthesized members included, extension blocks, no SPI: the DocC
    # plugin's options.
    swift-symbolgraph-extract -module-name "$module" "${flags[@]}" -minimum-access-level public \
        -emit-extension-block-symbols -output-dir "$graphs"
    catalog=()
    [ -d "Sources/$module/MSAL.docc" ] && catalog=("Sources/$module/MSAL.docc")
    log="$(mktemp)"
    if ! docc convert "${catalog[@]}" --warnings-as-errors --fallback-display-name "$module" \
        --fallback-bundle-identifier "$module" --additional-symbol-graph-dir "$graphs" \
        --output-path "$out/$module.doccarchive" >"$log" 2>&1; then
        grep -E "warning|error" "$log" >&2 || cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
    echo "DocC: $out/$module.doccarchive, no warning."
done
