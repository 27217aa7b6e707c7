#!/usr/bin/env bash
# Builds a Debian package of the `msal` tool: `msal` and `msal-emulator` (built as scripts/install.sh builds them, the
# Swift runtime linked in), msal's man page and its bash, zsh and fish completions, with the dependencies `ldd` shows
# the programs need from Debian (dpkg-shlibdeps), and libcurl, which the HTTP transport loads at run time (dlopen, so
# no ELF dependency shows it). libdbus (the identity broker) and libsecret (the encrypted token cache's Secret Service
# tier) are loaded at run time too, only when used: they are recommended, not required.
#   scripts/package-deb.sh                    # .build/deb/msal_<version>_<arch>.deb, from a release build
#   CONFIGURATION=debug scripts/package-deb.sh   # from the debug build, for tests: the programs then load the
#                                                 # Swift runtime from the toolchain that built them
#   DEB_COMPRESSION=gzip DEB_LEVEL=1 ...          # dpkg-deb's compressor and level (default: xz, its default level)
# Install with `sudo apt-get install ./.build/deb/msal_<version>_<arch>.deb`; remove with `sudo apt-get remove msal`.
# Prints the package's path.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
for tool in dpkg-deb dpkg-shlibdeps fakeroot; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        [ "$tool" = fakeroot ] && continue
        echo "error: $tool is missing (apt-get install dpkg-dev)" >&2
        exit 1
    fi
done

configuration="${CONFIGURATION:-release}"
source scripts/tool-build.sh

work="$(mktemp -d)"
trap 'rm -rf -- "$work"' EXIT
root="$work/root"
mkdir -p "$root/DEBIAN" "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
    "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/doc/msal"
install -m 0755 "$bin/msal" "$root/usr/bin/msal"
install -m 0755 "$bin/msal-emulator" "$root/usr/bin/msal-emulator"
strip --strip-unneeded "$root/usr/bin/msal" "$root/usr/bin/msal-emulator" 2>/dev/null || true

"$root/usr/bin/msal" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/msal"
"$root/usr/bin/msal" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_msal"
"$root/usr/bin/msal" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/msal.fish"

# The man page, as scripts/install.sh makes it (swift-argument-parser's generator), compressed as Debian keeps them.
mkdir -p "$work/manual"
"$generator" "$root/usr/bin/msal" --output-directory "$work/manual" --authors "MSAL for Swift" >&2
gzip -9n -c "$work/manual/msal.1" > "$root/usr/share/man/man1/msal.1.gz"
chmod 0644 "$root"/usr/share/man/man1/msal.1.gz "$root"/usr/share/bash-completion/completions/msal \
    "$root"/usr/share/zsh/vendor-completions/_msal "$root"/usr/share/fish/vendor_completions.d/msal.fish
printf "MSAL for Swift\nCopyright: the MSAL for Swift authors\n" > "$root/usr/share/doc/msal/copyright"
chmod 0644 "$root/usr/share/doc/msal/copyright"

# The shared libraries the programs link to, as Debian packages with their minimum versions (dpkg-shlibdeps reads
# the programs' ELF dependencies and the packages' symbol files).
mkdir -p "$work/debian"
printf 'Source: msal\n\nPackage: msal\nArchitecture: any\n' > "$work/debian/control"
# A debug build's Swift runtime comes from the toolchain, which no Debian package provides: left out.
ignore=()
[ "$configuration" = release ] || ignore=(--ignore-missing-info)
depends="$(cd "$work" && dpkg-shlibdeps "${ignore[@]}" -O -e root/usr/bin/msal -e root/usr/bin/msal-emulator 2>/dev/null \
    | sed -n 's/^shlibs:Depends=//p')"

version="$("$root/usr/bin/msal" --version | awk '{print $NF}')"
architecture="$(dpkg --print-architecture)"
installed_size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
cat > "$root/DEBIAN/control" <<EOF
Package: msal
Version: $version
Architecture: $architecture
Maintainer: MSAL for Swift <msal-swift@users.noreply.invalid>
Installed-Size: $installed_size
Depends: ${depends:-libc6}, libcurl4 (>= 7.77)
Recommends: libdbus-1-3, libsecret-1-0
Suggests: gnome-keyring
Section: utils
Priority: optional
Description: Microsoft identity platform sign-in and tokens at the command line
 msal signs users in to Microsoft Entra ID (work, school and personal accounts,
 Azure AD B2C) through the system browser, the device code flow or the Microsoft
 identity broker, and prints access tokens for Microsoft Graph and other APIs,
 sharing its token cache with MSAL for Python, .NET and Node.
 .
 msal-emulator is a local emulator of the identity platform and of Graph, for
 running and testing apps offline (msal demo, msal emulator).
 .
 libcurl (every request) is loaded at run time; libdbus (the identity broker)
 and libsecret (the Secret Service tier of the encrypted token cache) are loaded
 at run time too, only when used.
EOF

mkdir -p .build/deb
package=".build/deb/msal_${version}_${architecture}.deb"
compression=(-Z"${DEB_COMPRESSION:-xz}")
[ -n "${DEB_LEVEL:-}" ] && compression+=(-z"$DEB_LEVEL")
if command -v fakeroot >/dev/null 2>&1 && [ "$(id -u)" != 0 ]; then
    fakeroot dpkg-deb "${compression[@]}" --build "$root" "$package" >&2
else
    dpkg-deb "${compression[@]}" --root-owner-group --build "$root" "$package" >&2
fi
echo "$package"
