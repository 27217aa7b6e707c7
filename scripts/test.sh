#!/usr/bin/env bash
# Runs every test of the package:
#   1. the Swift test suites (library, emulator, loopback listener, real-Chromium sign-in, `msal` tool, seed
#      compatibility), which also drive Microsoft's MSAL for Python as the token-cache peer;
#   2. the DocC catalog, which must build without a warning;
#   3. the emulator fidelity suite: MSAL for Python's real flows against `msal-emulator` over HTTPS;
#   4. every fuzz target (scripts/fuzz.sh, docs/fuzzing.md) for a short time;
#   5. the encrypted token cache's tests again inside a private D-Bus session with gnome-keyring
#      (scripts/with-secret-service.sh), with MSAL for Python's msal-extensions sharing the Secret Service item;
#   6. the Apple-only code compiled and tested against the transcribed Apple SDK surface (scripts/apple-surface.sh).
# The Swift suites run with a throw-away PostgreSQL cluster (scripts/postgres-test-cluster.sh, Debian's postgresql)
# for the PostgreSQL token cache's tests.
# It installs what it needs itself: the Python peers (msal, azure-cli, azure-identity, pytest) into .venv, and on Debian Chromium and
# chromedriver (apt-get, with sudo when not root) for the real-browser sign-in test, tmux for the terminal
# sign-in test, and gnome-keyring, dbus,
# libsecret, secret-tool, keyutils and PyGObject for the Secret Service and kernel keyring tests.
set -euo pipefail
cd "$(dirname "$0")/.."

# Where the time goes: each phase's seconds, and the total, on stderr.
phase_start=$SECONDS
phase() {
    echo "== test.sh: $1 took $((SECONDS - phase_start)) s (total $SECONDS s)" >&2
    phase_start=$SECONDS
}

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r Tests/python/requirements.txt
export MSAL_PYTHON="$PWD/.venv/bin/python"
# The Azure CLI and azure-identity, for the Python tests only: installed while Swift builds (no Python runs then),
# with the peers' versions kept.
azure_log="$(mktemp)"
# (--no-compile: the Azure CLI's thousands of modules are not byte-compiled up front; the few the tests import are
# compiled when first imported.)
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-compile -r Tests/python/requirements-azure.txt \
    -c Tests/python/requirements.txt >"$azure_log" 2>&1 &
azure_install=$!
export MSAL_INTEROP_REQUIRED=1

# The Debian packages the tests need, each installed only where it is missing (apt-get, with sudo when not root), in
# the background while Swift builds: apt waits on the network and the disk much of the time, the build on the CPU.
# Once installed, the tests that use them must run (the MSAL_*_REQUIRED switches). Waited for after the build.
# - Chromium and chromedriver, for the end-to-end sign-in test;
# - tmux: `msal login` under a real terminal (paste-back sign-in without a display);
# - WebKitGTK and libsoup, which Microsoft's broker runtime (pymsalruntime, in requirements.txt) needs to load, for its
#   test against the emulated broker;
# - a Secret Service (gnome-keyring on a private session bus), libsecret, keyutils, and Debian's Python with PyGObject
#   for msal-extensions' LibsecretPersistence (the broker's D-Bus tests run on private buses with this dbus-daemon);
# - PostgreSQL, for the PostgreSQL token cache's tests (scripts/postgres-test-cluster.sh installs it itself otherwise);
# - dpkg-dev (dpkg-shlibdeps) and man-db (man), for the Debian package step.
secret_service_packages=(gnome-keyring dbus libsecret-1-0 libsecret-tools keyutils libkeyutils1 python3-gi gir1.2-secret-1)
secret_python=".build/secret-service-python"
install_debian_packages() {
    if ! { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } \
        && ! scripts/apt-install.sh "the browser tests" chromium chromium-driver; then
        echo "error: chromium and chromium-driver could not be installed; the Chromium end-to-end test will fail"
    fi
    if ! command -v tmux >/dev/null 2>&1 && ! scripts/apt-install.sh "the terminal sign-in tests" tmux; then
        echo "error: tmux could not be installed; the terminal sign-in tests will fail"
    fi
    if ! ldconfig -p 2>/dev/null | grep -q 'libwebkit2gtk-4.1.so.0' \
        && ! scripts/apt-install.sh "Microsoft's broker runtime (pymsalruntime)" libwebkit2gtk-4.1-0 libsoup-3.0-0; then
        echo "error: WebKitGTK could not be installed; the pymsalruntime broker test will fail"
    fi
    if ! { command -v gnome-keyring-daemon >/dev/null 2>&1 && command -v dbus-run-session >/dev/null 2>&1 \
            && command -v secret-tool >/dev/null 2>&1 && command -v keyctl >/dev/null 2>&1 \
            && /usr/bin/python3 -c "import gi; gi.require_version('Secret', '1')" >/dev/null 2>&1; } \
        && ! scripts/apt-install.sh "the encrypted token cache tests" "${secret_service_packages[@]}"; then
        echo "error: the Secret Service packages could not be installed; the Secret Service tests will fail"
    fi
    # msal-extensions on Debian's Python (which has PyGObject): the Secret Service interop peer.
    if [ -x /usr/bin/python3 ] && [ ! -x "$secret_python/bin/python" ]; then
        /usr/bin/python3 -m venv --system-site-packages "$secret_python" || true
    fi
    if [ -x "$secret_python/bin/python" ]; then
        "$secret_python/bin/python" -m pip install --quiet --disable-pip-version-check \
            "$(grep -i '^msal-extensions' Tests/python/requirements.txt)" || true
    fi
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null \
        || scripts/apt-install.sh "the PostgreSQL token cache tests" postgresql || true
    command -v dpkg-shlibdeps >/dev/null 2>&1 || scripts/apt-install.sh "the Debian package" dpkg-dev || true
    command -v man >/dev/null 2>&1 || scripts/apt-install.sh "the Debian package's man page" man-db || true
}
debian_log="$(mktemp)"
install_debian_packages >"$debian_log" 2>&1 &
debian_install=$!
export MSAL_BROWSER_TESTS_REQUIRED=1 MSAL_TERMINAL_TESTS_REQUIRED=1 MSAL_DBUS_REQUIRED=1 MSAL_BROKER_REQUIRED=1

# The layering the architecture depends on (MSALCore platform-free, the emulator apart from the client).
python3 scripts/module-graph.py

phase "setup (Python peers, Debian packages)"
swift build --traits Tools --build-tests
phase "swift build --build-tests"
# Every Swift snippet of README, docs/ and the DocC articles, compiled as written against what was just built.
python3 scripts/check-snippets.py
# README's dependency line, resolved as an app's manifest writes it (a clone named as the published repository).
python3 scripts/check-dependency-line.py
if ! wait "$azure_install"; then
    cat "$azure_log" >&2
    echo "error: the Azure CLI and azure-identity could not be installed" >&2
    exit 1
fi
rm -f "$azure_log"
wait "$debian_install" || true
cat "$debian_log" >&2
rm -f "$debian_log"
# The PostgreSQL token cache's tests run against a throw-away cluster (installed and started by the script).
export MSAL_POSTGRES_REQUIRED=1
# The suites that check how long something takes (timeouts, bounded waits) run after the others, on a quiet process:
# the whole suite at once keeps both cores busy for tens of seconds, which says nothing of a timeout.
timed_suites='TransportTimeoutTests|TimeoutCommandTests|HTTPTransportTests|PartitionLockTests|CrossProcessRefreshTests|CacheSharingTests'
if [ "$#" -eq 0 ]; then
    scripts/postgres-test-cluster.sh bash -c "swift test --traits Tools --skip-build --skip '$timed_suites' \
        && swift test --traits Tools --skip-build --filter '$timed_suites'"
else
    scripts/postgres-test-cluster.sh swift test --traits Tools --skip-build "$@"
fi
phase "swift test (with PostgreSQL)"

# The fuzz targets' sanitizer build (scripts/fuzz.sh), in the background at the lowest priority while the steps below
# run: they wait on processes, sockets and a keyring much of the time, and keep the CPU whenever they want it.
# Fuzzing itself waits for the build, at the end.
fuzz_log="$(mktemp)"
FUZZ_BUILD_ONLY=1 nice -n 19 scripts/fuzz.sh >"$fuzz_log" 2>&1 &
fuzz_build=$!
# A step that fails ends the run; the background build must not outlive it (the next run builds in the same place).
trap 'pkill -TERM -P "$fuzz_build" 2>/dev/null || true; kill "$fuzz_build" 2>/dev/null || true' EXIT

# The install step (README): msal, msal-emulator, the man page and the completions into a temporary prefix; the
# installed tool runs, its man page documents the commands, and bash completion offers the subcommands.
install_prefix="$(mktemp -d)"
MSAL_BUILT=1 CONFIGURATION=debug PREFIX="$install_prefix" scripts/install.sh >/dev/null
"$install_prefix/bin/msal" --version >/dev/null
grep -q "status" "$install_prefix/share/man/man1/msal.1"
completed="$(bash -c 'source "$1"; COMP_WORDS=(msal sta); COMP_CWORD=1; _msal 2>/dev/null; echo "${COMPREPLY[*]}"' _ \
    "$install_prefix/share/bash-completion/completions/msal")"
case " $completed " in
    *" status "*) ;;
    *) echo "error: bash completion of 'msal sta' gave '$completed'" >&2; exit 1 ;;
esac
rm -rf "$install_prefix"
phase "install step"

# The Debian package (scripts/package-deb.sh, README), from the debug build: installed on this machine with dpkg, the
# installed msal run, its man page read with man, its bash completion asked, then removed. Where msal is already
# installed by other means the step is skipped (a file the package did not make is never replaced).
deb_check() {
    local package
    package="$(MSAL_BUILT=1 CONFIGURATION=debug DEB_COMPRESSION=gzip DEB_LEVEL=1 scripts/package-deb.sh 2>/dev/null)"
    case "$(dpkg-deb -f "$package" Depends)" in
        *libc6*libcurl4*) ;;
        *) echo "error: the package's dependencies do not name the C library and libcurl" >&2; return 1 ;;
    esac
    if [ "$(id -u)" != 0 ] || { [ -e /usr/bin/msal ] && ! dpkg -S /usr/bin/msal >/dev/null 2>&1; } \
        || { [ -e /usr/bin/msal-emulator ] && ! dpkg -S /usr/bin/msal-emulator >/dev/null 2>&1; }; then
        echo "note: the Debian package was built ($package) but not installed: not root, or msal is installed otherwise" >&2
        return 0
    fi
    # A machine whose dpkg leaves out manual pages (minimal images) still gets this one.
    dpkg --path-include=/usr/share/man/man1/msal.1.gz -i "$package" >/dev/null
    /usr/bin/msal --version >/dev/null
    local manual
    manual="$(MANPAGER=cat MANWIDTH=100 man msal 2>/dev/null)"
    case "$manual" in
        *status*) ;;
        *) echo "error: man msal does not document the commands" >&2; dpkg -r msal >/dev/null; return 1 ;;
    esac
    local offered
    offered="$(bash -c 'source /usr/share/bash-completion/completions/msal; COMP_WORDS=(msal sta); COMP_CWORD=1; _msal 2>/dev/null; echo "${COMPREPLY[*]}"')"
    case " $offered " in
        *" status "*) ;;
        *) echo "error: the package's bash completion of 'msal sta' gave '$offered'" >&2; dpkg -r msal >/dev/null; return 1 ;;
    esac
    dpkg -r msal >/dev/null
    [ ! -e /usr/bin/msal ] && [ ! -e /usr/share/man/man1/msal.1.gz ]
}
# dpkg-dev (dpkg-shlibdeps, for the dependencies) and man-db (man) where the machine lacks them.
command -v dpkg-shlibdeps >/dev/null 2>&1 || scripts/apt-install.sh "the Debian package" dpkg-dev
command -v man >/dev/null 2>&1 || scripts/apt-install.sh "the Debian package's man page" man-db
deb_check
phase "Debian package"

# The encrypted token cache against a real Secret Service (gnome-keyring) and msal-extensions.
MSAL_SECRET_SERVICE_PYTHON="$PWD/$secret_python/bin/python" \
    scripts/with-secret-service.sh swift test --traits Tools --skip-build --filter MSALSecureStorageTests
scripts/with-secret-service.sh --locked swift test --traits Tools --skip-build --filter LockedSecretServiceTests
phase "Secret Service tests"

# The DocC catalog (Sources/MSALCore/MSAL.docc: the API and the articles) builds with no warning (broken symbol
# links fail the run). It documents MSALCore, whose symbols the MSAL umbrella re-exports; the umbrella's own
# documentation (the module apps import) builds without a warning too. From the modules the test build made
# (scripts/docc.sh): the DocC plugin's own build would compile them again without testability.
scripts/docc.sh
phase "DocC"

MSAL_EMULATOR_BIN="$(swift build --traits Tools --show-bin-path)/msal-emulator" \
    .venv/bin/python -m pytest -q Tests/python -W ignore::UserWarning
phase "pytest (MSAL for Python, azure-identity, the Azure CLI)"

# The Apple-only code (keychain cache, authentication session, presentation), which no Linux build otherwise
# compiles: built in Swift 6 mode against the transcribed Apple SDK surface for iOS and for macOS
# (AppleSurface/README.md), its tests run, and the seeds' iOS view controller type-checked against the package. After
# the other Swift steps: it rebuilds the MSAL module against the surface.
scripts/apple-surface.sh
phase "Apple surface"

# Every libFuzzer target of Fuzz/ for a bounded time (MSAL_FUZZ_SECONDS per target), after the other tests, once
# their build (started above) is done.
if ! wait "$fuzz_build"; then
    cat "$fuzz_log" >&2
    echo "error: the fuzz targets could not be built" >&2
    exit 1
fi
grep "fuzz build:" "$fuzz_log" || true
rm -f "$fuzz_log"
FUZZ_SKIP_BUILD=1 scripts/fuzz.sh "${MSAL_FUZZ_SECONDS:-10}"
phase "fuzzing"
