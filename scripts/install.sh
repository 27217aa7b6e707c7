#!/usr/bin/env bash
# Installs the `msal` tool and the identity platform emulator (`msal-emulator`, which `msal emulator` and
# `msal demo` start) into PREFIX/bin, with msal's man page and its bash, zsh and fish completions:
#   scripts/install.sh                       # PREFIX=~/.local: ~/.local/bin/msal, ~/.local/share/man/man1/msal.1, ...
#   PREFIX=/usr/local sudo -E scripts/install.sh
#   CONFIGURATION=debug scripts/install.sh   # a debug build (faster to build, slower to run)
# Prints where each file went, and a hint when PREFIX/bin is not on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

prefix="${PREFIX:-$HOME/.local}"
configuration="${CONFIGURATION:-release}"

source scripts/tool-build.sh

# Directories: created where missing (mkdir -p), never re-moded where they exist. Files: install(1) writes a new file
# and renames it into place, so a link at the destination is replaced, never followed.
mkdir -p -- "$prefix/bin"
install -m 0755 "$bin/msal" "$prefix/bin/msal"
install -m 0755 "$bin/msal-emulator" "$prefix/bin/msal-emulator"
echo "installed $prefix/bin/msal and $prefix/bin/msal-emulator"

# Shell completions (swift-argument-parser's generator, from the installed binary).
completions=(
    "bash:$prefix/share/bash-completion/completions/msal"
    "zsh:$prefix/share/zsh/site-functions/_msal"
    "fish:$prefix/share/fish/vendor_completions.d/msal.fish"
)
for entry in "${completions[@]}"; do
    shell="${entry%%:*}"
    file="${entry#*:}"
    mkdir -p -- "$(dirname "$file")"
    generated="$(mktemp)"
    "$prefix/bin/msal" --generate-completion-script "$shell" > "$generated"
    install -m 0644 "$generated" "$file"
    rm -f -- "$generated"
    echo "installed $shell completion $file"
done

# The man page: swift-argument-parser's manual generator (scripts/tool-build.sh), run on the installed binary's own help.
manual="$(mktemp -d)"
"$generator" "$prefix/bin/msal" --output-directory "$manual" \
    --authors "MSAL for Swift" >&2
mkdir -p -- "$prefix/share/man/man1"
install -m 0644 "$manual/msal.1" "$prefix/share/man/man1/msal.1"
rm -rf -- "$manual"
echo "installed the man page $prefix/share/man/man1/msal.1 (man msal)"

case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on PATH; add it, as in: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
