#!/usr/bin/env python3
"""Writes scripts/msal-startup.order: the functions `msal token` runs from a warm cache, in the order they first run.

scripts/build-release.sh hands the file to lld (`--symbol-ordering-file`), which places those functions side by side
at the start of the program's code. Starting `msal` then faults in a few dozen pages of code instead of pieces of
hundreds of 64 KiB windows spread over 28 MiB: less memory and a faster start. Functions the file names but the
program lacks (another toolchain, renamed code) are skipped by the linker, so a stale file costs nothing but speed.

Needs valgrind (callgrind) and a release build:

    scripts/build-release.sh && Benchmarks/startup_order.py --bin .build/release
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile


def executed_functions(callgrind_out, program_suffix):
    """The mangled names of the functions of the program itself (not of shared libraries) that ran, in the order
    callgrind first reports them."""
    names = {}
    with open(callgrind_out) as f:
        lines = f.read().splitlines()
    for line in lines:
        match = re.match(r"^c?fn=\((\d+)\) (.*)$", line)
        if match:
            names[match.group(1)] = match.group(2)
    objects, current, ordered, seen = {}, None, [], set()
    for line in lines:
        match = re.match(r"^(c?ob)=\((\d+)\)(?: (.*))?$", line)
        if match:
            kind, number, name = match.groups()
            if name:
                objects[number] = name
            if kind == "ob":
                current = objects.get(number)
            continue
        match = re.match(r"^fn=\((\d+)\)", line)
        if match and current and current.endswith(program_suffix):
            name = names.get(match.group(1), "").split("'")[0]
            if name and not name.startswith("0x") and name not in seen:
                seen.add(name)
                ordered.append(name)
    return ordered


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release", help="directory holding msal and msal-emulator")
    parser.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parent.parent / "scripts/msal-startup.order"))
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.bin).resolve()
    workdir = tempfile.mkdtemp(prefix="msal-order-")
    env = {"HOME": workdir, "XDG_DATA_HOME": workdir, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "MSAL_CACHE": str(pathlib.Path(workdir, "cache.json"))}
    emulator = subprocess.Popen([str(bin_dir / "msal-emulator"), "serve", "--json", "--auto-approve",
                                 "adele@contoso.onmicrosoft.com"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        summary = json.loads(emulator.stdout.readline())
        env.update({"MSAL_CLIENT_ID": summary["client_id"], "MSAL_AUTHORITY": summary["http"] + "/" + summary["tenant_id"]})
        subprocess.run([str(bin_dir / "msal"), "login", "--emulator-auto-approve"], env=env, check=True, capture_output=True)
    finally:
        emulator.terminate()
        emulator.wait()
    # valgrind cannot read the toolchain's DWARF 5; the symbol table is all it needs.
    program = pathlib.Path(workdir, "msal-order-probe")
    subprocess.run(["objcopy", "--strip-debug", str(bin_dir / "msal"), str(program)], check=True)
    out = pathlib.Path(workdir, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", str(program), "token"],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    functions = executed_functions(out, program.name)
    if len(functions) < 100:
        sys.exit(f"only {len(functions)} functions recorded; is the build stripped?")
    pathlib.Path(args.out).write_text("\n".join(functions) + "\n")
    print(f"{len(functions)} functions -> {args.out}")


if __name__ == "__main__":
    main()
