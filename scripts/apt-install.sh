#!/usr/bin/env bash
# Installs Debian packages for the test command: apt-get (with sudo when not root), and once more after
# `apt-get update` when the first attempt fails.
#   scripts/apt-install.sh "PURPOSE" PACKAGE...     (prints "Installing PACKAGE... for PURPOSE..." on stderr)
# Exits 1 when apt-get is missing, sudo is needed but missing, or the packages cannot be installed.
set -uo pipefail

purpose="$1"
shift
command -v apt-get >/dev/null 2>&1 || exit 1
sudo=""
if [ "$(id -u)" != "0" ]; then
    command -v sudo >/dev/null 2>&1 || exit 1
    sudo="sudo"
fi
echo "Installing $* for $purpose..." >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null \
    || { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null \
         && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null; }
