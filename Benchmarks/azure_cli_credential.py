#!/usr/bin/env python3
"""Time to a token through the Azure CLI's sign-in: MSALCredentialChain's Azure CLI step (`msal-bench azure-cli`: from
az's cache file, and by running az) beside azure-identity's AzureCliCredential (which runs az on every call), on the
same machine, against `msal-emulator` with az signed in as the emulator's daemon.

    swift build --traits Tools -c release --product msal-bench --product msal-emulator
    Benchmarks/azure_cli_credential.py --bin .build/release [--runs 5] [--json]

Needs az and azure-identity in this Python (`pip install azure-cli azure-identity`).
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

DAEMON = "7d3e1b2a-4c5f-4e6d-8a9b-0c1d2e3f4a5b"
SCOPE = "https://graph.microsoft.com/.default"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=".build/release", help="directory holding msal-bench and msal-emulator")
    parser.add_argument("--runs", type=int, default=5, help="calls that run az (each side)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    bin_dir = pathlib.Path(args.bin).resolve()
    az = pathlib.Path(sys.executable).with_name("az")
    az = str(az) if az.exists() else shutil.which("az")
    if not az:
        sys.exit("az is not installed in this Python (pip install azure-cli)")
    home = tempfile.mkdtemp(prefix="msal-azbench-")
    emulator = subprocess.Popen([str(bin_dir / "msal-emulator"), "serve", "--json", "--ca-dir", home],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        summary = json.loads(emulator.stdout.readline())
        env = {"PATH": str(pathlib.Path(az).parent) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "AZURE_CONFIG_DIR": str(pathlib.Path(home, ".azure")), "REQUESTS_CA_BUNDLE": summary["ca_certificate"],
               "AZURE_CORE_INSTANCE_DISCOVERY": "false", "AZURE_CORE_COLLECT_TELEMETRY": "false",
               "AZURE_CORE_ONLY_SHOW_ERRORS": "true"}

        def run(*argv):
            subprocess.run([az, *argv, "--output", "none"], env=env, check=True, capture_output=True)

        run("cloud", "register", "--name", "MSALEmulator", "--endpoint-resource-manager", summary["https"] + "/")
        run("cloud", "set", "--name", "MSALEmulator")
        run("login", "--service-principal", "--username", DAEMON, "--password", "daemon-secret",
            "--tenant", summary["tenant_id"])
        run("account", "get-access-token", "--scope", SCOPE)

        swift = subprocess.run([str(bin_dir / "msal-bench"), "azure-cli", "--scopes", SCOPE, "--runs", str(args.runs),
                                "--json"], env=env, check=True, capture_output=True, text=True)
        figures = {"msal_credential_chain": json.loads(swift.stdout)}

        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(env)
        try:
            from azure.identity import AzureCliCredential
            credential = AzureCliCredential()
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                credential.get_token(SCOPE)
                times.append((time.perf_counter() - start) * 1000)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        figures["azure_identity_AzureCliCredential"] = {"get_token_ms_p50": statistics.median(times), "runs": len(times)}
    finally:
        emulator.terminate()
        emulator.wait()
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        chain = figures["msal_credential_chain"]
        print(f"MSALCredentialChain Azure CLI step: {chain['cache_hit_ms_p50']:.3f} ms from az's cache, "
              f"{chain['az_run_ms_p50']:.0f} ms running az; azure-identity AzureCliCredential: "
              f"{figures['azure_identity_AzureCliCredential']['get_token_ms_p50']:.0f} ms")


if __name__ == "__main__":
    main()
