#!/usr/bin/env python3
"""Type-checks the MSAL module against another generation or mode of the transcribed Apple SDK surface.

Usage: apple-surface-typecheck.py BUILT_SURFACE OTHER_SURFACE [extra swiftc flags...]

Reads the package manager's own command for the MSAL module from .build/debug.yaml (written by the last
`MSAL_APPLE_SURFACE=... swift build`, which compiled MSAL against BUILT_SURFACE), points it at OTHER_SURFACE and
runs it with -typecheck: the same sources, language mode, upcoming features and -warnings-as-errors, no output.
"""
import json
import os
import re
import subprocess
import sys

# Flags of the build command that name outputs or scheduling, not how the code is checked: (flag, takes a value).
DROPPED = {
    "-emit-dependencies": False, "-emit-module": False, "-incremental": False, "-c": False,
    "-enable-batch-mode": False, "-serialize-diagnostics": False, "-emit-module-path": True,
    "-output-file-map": True, "-index-store-path": True, "-emit-objc-header-path": True,
    "-parseable-output": False, "-emit-objc-header": False,
}


def msal_command(yaml_text):
    key = re.compile(r'^\s*"C\.MSAL-[^"]*-debug\.module":\s*$')
    lines = yaml_text.splitlines()
    for index, line in enumerate(lines):
        if key.match(line):
            for following in lines[index + 1:index + 12]:
                stripped = following.strip()
                if stripped.startswith("args:"):
                    return json.loads(stripped[len("args:"):].strip())
    raise SystemExit("error: no command for the MSAL module in .build/debug.yaml (build with MSAL_APPLE_SURFACE first)")


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    built, other = (os.path.abspath(p) for p in sys.argv[1:3])
    extra = sys.argv[3:]
    with open(".build/debug.yaml", encoding="utf-8") as handle:
        args = msal_command(handle.read())
    command, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in DROPPED:
            skip = DROPPED[arg]
            continue
        if re.fullmatch(r"-j\d+", arg):
            continue
        command.append(other if os.path.abspath(arg) == built else arg)
    if other not in command:
        raise SystemExit(f"error: the MSAL module was not built against {built}")
    command += ["-typecheck"] + extra
    sys.exit(subprocess.run(command).returncode)


if __name__ == "__main__":
    main()
