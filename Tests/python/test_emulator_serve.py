"""`msal-emulator serve` as a process: stopped with SIGTERM, it removes the temporary directory it made for its CA
certificate (and keeps a directory it was given with --ca-dir)."""
import json
import os
import pathlib
import signal
import subprocess
import tempfile

from conftest import ROOT, _emulator_binary


def serve(*extra):
    process = subprocess.Popen(_emulator_binary() + ["serve", "--json", *extra], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=str(ROOT))
    line = process.stdout.readline()
    assert line, process.stderr.read()
    return process, json.loads(line)


def stop(process):
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 0


def test_sigterm_removes_the_temporary_ca_directory_only():
    process, summary = serve()
    made = pathlib.Path(summary["ca_certificate"]).parent
    assert made.is_dir()
    stop(process)
    assert not made.exists()

    given = tempfile.mkdtemp(prefix="msal-emulator-ca-given-")
    process, summary = serve("--ca-dir", given)
    assert pathlib.Path(summary["ca_certificate"]).parent == pathlib.Path(given)
    stop(process)
    assert pathlib.Path(summary["ca_certificate"]).exists()
