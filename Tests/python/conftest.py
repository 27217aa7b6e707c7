"""Starts the `msal-emulator` binary once per test session and hands its start-up JSON to tests."""
import contextlib
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


@contextlib.contextmanager
def scoped_environment(names, keep=(), **values):
    """Clears the variables `names` in os.environ (except those in `keep`), sets `values`, and restores every one of
    `names` afterwards. `values` must be among `names`, so that nothing outlives the block."""
    assert set(values) <= set(names), set(values) - set(names)
    saved = {name: os.environ.get(name) for name in names}
    try:
        for name in names:
            if name not in keep:
                os.environ.pop(name, None)
        os.environ.update(values)
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
