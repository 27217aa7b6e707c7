"""Starts the `msal-emulator` binary once per test session and hands its start-up JSON to tests."""
import json
import os
import pathlib
import subprocess
import tempfile

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _emulator_binary():
    explicit = os.environ.get("MSAL_EMULATOR_BIN")
    if explicit:
        return [explicit]
    built = ROOT / ".build" / "debug" / "msal-emulator"
    if built.exists():
        return [str(built)]
    return ["swift", "run", "--package-path", str(ROOT), "msal-emulator"]


def _msal_binary():
    """The `msal` tool: MSAL_BIN, else the one beside the emulator program, else the debug build."""
    explicit = os.environ.get("MSAL_BIN")
    if explicit:
        return [explicit]
    emulator = os.environ.get("MSAL_EMULATOR_BIN")
    if emulator:
        beside = pathlib.Path(emulator).with_name("msal")
        if beside.exists():
            return [str(beside)]
    built = ROOT / ".build" / "debug" / "msal"
    if built.exists():
        return [str(built)]
    return ["swift", "run", "--package-path", str(ROOT), "msal"]


@pytest.fixture(scope="session")
def emulator():
    workdir = tempfile.mkdtemp(prefix="msal-emulator-py-")
    config = pathlib.Path(workdir, "config.json")
    # Device-code polling every second keeps the test short; everything else is the ready default.
    config.write_text(json.dumps({"lifetimes": {"deviceCodeInterval": 1}}))
    process = subprocess.Popen(
        _emulator_binary() + ["serve", "--json", "--config", str(config), "--ca-dir", workdir],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(ROOT),
    )
    line = process.stdout.readline()
    if not line:
        process.kill()
        raise RuntimeError("emulator did not start: " + process.stderr.read())
    info = json.loads(line)
    yield info
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


class CountingSession(requests.Session):
    """A requests session that trusts only the emulator's CA and counts what it sends."""

    def __init__(self, ca):
        super().__init__()
        self.verify = ca
        self.trust_env = False  # this machine's REQUESTS_CA_BUNDLE would override verify
        self.sent = []

    def request(self, method, url, *args, **kwargs):
        self.sent.append((method, url))
        return super().request(method, url, *args, **kwargs)


@pytest.fixture
def http_client(emulator):
    return CountingSession(emulator["ca_certificate"])


@pytest.fixture
def browser_session(emulator):
    session = requests.Session()
    session.verify = emulator["ca_certificate"]
    session.trust_env = False
    return session
