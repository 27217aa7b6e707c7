#!/usr/bin/env python3
"""Whole-process start-up of `msal token` from a warm cache: wall time and peak memory per run.

Starts `msal-emulator serve --auto-approve <user>` on 127.0.0.1, signs in once with `msal login` into a private
cache file, then runs `msal token` RUNS times (no network: the cached token is valid) and prints the figures.
With --baseline it also times a Foundation "hello world" built with the same compiler, the floor of any Swift
program on this machine.

    scripts/build-release.sh                 # release, Swift runtime linked in
    Benchmarks/startup.py --bin .build/release [--runs 200] [--baseline] [--default-cache] [--json]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time


def run_once(argv, env):
    """Runs argv; returns (wall seconds, peak RSS in KiB, exit status, stdout)."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout = process.stdout.read()
    process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss, process.returncode, stdout


def measure(programs, env, runs, warmup=5):
    """Runs each program of {name: argv} `runs` times, alternating between them so that they share the machine's
    state (frequency, caches, other load) run for run; returns {name: figures}."""
    for _ in range(warmup):
        for argv in programs.values():
            run_once(argv, env)
    walls = {name: [] for name in programs}
    peaks = {name: [] for name in programs}
    for _ in range(runs):
        for name, argv in programs.items():
            wall, peak, status, _ = run_once(argv, env)
            if status != 0:
                sys.exit(f"{argv[0]} exited {status}")
            walls[name].append(wall * 1000)
            peaks[name].append(peak / 1024)
    figures = {}
    for name in programs:
        times = sorted(walls[name])
        figures[name] = {
            "runs": runs,
            "wall_ms_min": round(times[0], 2),
            "wall_ms_p50": round(statistics.median(times), 2),
            "wall_ms_p90": round(times[int(len(times) * 0.9) - 1], 2),
            "peak_rss_mib_max": round(max(peaks[name]), 1),
            "peak_rss_mib_p50": round(statistics.median(peaks[name]), 1),
        }
    return figures


def hello_world(workdir):
    source = pathlib.Path(workdir, "hello.swift")
    source.write_text('import Foundation\nprint("hello \\(Date().timeIntervalSince1970)")\n')
    binary = pathlib.Path(workdir, "hello")
    subprocess.run(["swiftc", "-O", str(source), "-o", str(binary)], check=True)
    return [str(binary)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release", help="directory holding msal and msal-emulator")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--baseline", action="store_true", help="also time a Foundation hello world")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--default-cache", action="store_true",
                        help="use msal's encrypted default cache (Secret Service, kernel keyring or key file) "
                             "instead of a plain --cache file")
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.bin).resolve()
    msal, emulator_bin = str(bin_dir / "msal"), str(bin_dir / "msal-emulator")
    workdir = tempfile.mkdtemp(prefix="msal-startup-")
    env = {"HOME": workdir, "XDG_DATA_HOME": workdir, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    emulator = subprocess.Popen([emulator_bin, "serve", "--json", "--auto-approve", "adele@contoso.onmicrosoft.com"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        summary = json.loads(emulator.stdout.readline())
        cache = str(pathlib.Path(workdir, "cache.json"))
        env.update({"MSAL_CLIENT_ID": summary["client_id"], "MSAL_AUTHORITY": summary["http"] + "/" + summary["tenant_id"]})
        if not args.default_cache:
            env["MSAL_CACHE"] = cache
        login = subprocess.run([msal, "login", "--emulator-auto-approve"], env=env, capture_output=True)
        if login.returncode != 0:
            sys.exit("msal login failed: " + login.stderr.decode())
        emulator.terminate()
        emulator.wait()
        # The emulator is gone: `msal token` must answer from the cache alone (the tenant id, not a domain, in the
        # authority: no metadata to look up).
        programs = {"msal_token": [msal, "token"]}
        if args.baseline:
            programs["foundation_hello_world"] = hello_world(workdir)
        figures = measure(programs, env, args.runs)
        if args.baseline:
            figures["ratio_wall_p50"] = round(figures["msal_token"]["wall_ms_p50"]
                                              / figures["foundation_hello_world"]["wall_ms_p50"], 2)
            figures["extra_peak_rss_mib_p50"] = round(figures["msal_token"]["peak_rss_mib_p50"]
                                                      - figures["foundation_hello_world"]["peak_rss_mib_p50"], 1)
    finally:
        if emulator.poll() is None:
            emulator.kill()
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for name, values in figures.items():
            if not isinstance(values, dict):
                print(f"{name}: {values}")
                continue
            print(f"{name}: wall p50 {values['wall_ms_p50']} ms (min {values['wall_ms_min']}, p90 "
                  f"{values['wall_ms_p90']}), peak RSS {values['peak_rss_mib_max']} MiB over {values['runs']} runs")


if __name__ == "__main__":
    main()
