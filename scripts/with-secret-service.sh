#!/usr/bin/env bash
# Runs a command with a real Secret Service: a private D-Bus session bus (dbus-run-session) and gnome-keyring's
# secrets component with an unlocked "login" collection, in a throw-away HOME so that the user's own keyring is
# never touched.
#
#   scripts/with-secret-service.sh [--locked] <command> [argument ...]
#   scripts/with-secret-service.sh swift test --traits Tools --skip-build --filter MSALSecureStorageTests
#   scripts/with-secret-service.sh --locked swift test --traits Tools --skip-build --filter LockedSecretServiceTests
#
# --locked locks the login collection before the command runs (no prompt can unlock it: there is no display), and
# sets MSAL_SECRET_SERVICE_LOCKED=1 instead of MSAL_SECRET_SERVICE_REQUIRED=1.
#
# Needs the Debian packages dbus (dbus-run-session), gnome-keyring, libsecret-1-0 and libsecret-tools
# (scripts/test.sh installs them). The command's own environment keeps PATH and the working directory; HOME,
# XDG_DATA_HOME and XDG_RUNTIME_DIR point into the throw-away directory, and MSAL_SECRET_SERVICE_REQUIRED=1 makes
# the Secret Service tests fail rather than skip when the service does not answer.
set -euo pipefail

locked=0
if [ "${1:-}" = "--locked" ]; then
    locked=1
    shift
fi
if [ "$#" -eq 0 ]; then
    echo "usage: $0 [--locked] <command> [argument ...]" >&2
    exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon secret-tool; do
    command -v "$tool" >/dev/null 2>&1 || { echo "error: $tool is not installed" >&2; exit 1; }
done

scratch="$(mktemp -d "${TMPDIR:-/tmp}/msal-secret-service.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/home" "$scratch/runtime"
chmod 700 "$scratch/runtime"

# Inside the bus: start the keyring with a known password (which creates and unlocks "login", the default
# collection), check that an item can be stored and read back, then run the command.
inner='
set -eu
echo -n "msal-test-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
probe="msal-probe-$$"
tries=0
until printf %s "$probe" | secret-tool store --label="MSAL probe" msal-probe "$probe" 2>/dev/null; do
    tries=$((tries + 1))
    if [ "$tries" -ge 20 ]; then echo "error: the Secret Service does not answer" >&2; exit 1; fi
    sleep 0.25
done
[ "$(secret-tool lookup msal-probe "$probe")" = "$probe" ] || { echo "error: the Secret Service lost a probe item" >&2; exit 1; }
secret-tool clear msal-probe "$probe"
if [ "${MSAL_SECRET_SERVICE_LOCKED:-0}" = 1 ]; then
    dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets \
        org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null
fi
exec "$@"
'
HOME="$scratch/home" XDG_DATA_HOME="$scratch/home/.local/share" XDG_RUNTIME_DIR="$scratch/runtime" \
    MSAL_SECRET_SERVICE_REQUIRED=$((1 - locked)) MSAL_SECRET_SERVICE_LOCKED=$locked \
    dbus-run-session -- sh -c "$inner" sh "$@" \
    2> >(grep -v -e "Failed to set fd limit" -e "Activating service name=" -e "Activated service" -e "cannot open display" >&2)
