"""Starts the `msal-emulator` binary once per test session and hands its start-up JSON to tests."""
import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

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


# The emulated broker on a private session bus (test_msal_python_broker.py, test_broker_pop.py). pymsalruntime needs
# (docs/emulator.md) a bus on a path socket with no service activation, an unlocked Secret Service on that bus, and the
# broker on the bus before it is imported. MSAL_BROKER_REQUIRED=1 turns a missing piece into a failure.
BROKER_REQUIRED = os.environ.get("MSAL_BROKER_REQUIRED") == "1"


def _missing():
    for tool in ("dbus-daemon", "gnome-keyring-daemon", "dbus-send"):
        if not shutil.which(tool):
            return tool
    probe = subprocess.run([sys.executable, "-c", "import importlib.util as u; "
                            "print(u.find_spec('pymsalruntime') is not None)"], capture_output=True, text=True)
    return None if probe.stdout.strip() == "True" else "pymsalruntime"


def _wait(condition, what, seconds=30):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.05)


@pytest.fixture(scope="module")
def brokered_bus():
    missing = _missing()
    if missing:
        if BROKER_REQUIRED:
            pytest.fail(f"{missing} is not installed")
        pytest.skip(f"{missing} is not installed")
    work = pathlib.Path(tempfile.mkdtemp(prefix="msal-broker-py-"))
    for name in ("run", "services", "home"):
        (work / name).mkdir()
    os.chmod(work / "run", 0o700)
    config = work / "session.conf"
    config.write_text(f"""<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir={work / 'run'}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>{work / 'services'}</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
  <limit name="reply_timeout">300000</limit>
</busconfig>
""")
    processes = []
    try:
        bus = subprocess.Popen(["dbus-daemon", f"--config-file={config}", "--nofork", "--print-address=1"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(bus)
        address = bus.stdout.readline().strip()
        assert address.startswith("unix:path="), address
        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address, HOME=str(work / "home"),
                   XDG_RUNTIME_DIR=str(work / "run"), XDG_DATA_HOME=str(work / "home" / ".local" / "share"))
        # The Secret Service on the same bus, its login collection unlocked (a non-empty password creates it).
        keyring = subprocess.Popen(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        processes.append(keyring)
        keyring.stdin.write(b"msal-broker-test")
        keyring.stdin.close()

        def login_collection():
            answer = subprocess.run(
                ["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                 "org.freedesktop.Secret.Service.ReadAlias", "string:login"], env=env, capture_output=True, text=True)
            return "/org/freedesktop/secrets/collection/login" in answer.stdout
        _wait(login_collection, "the Secret Service's login collection")
        # The emulated broker, on the bus before any client imports pymsalruntime.
        emulator = subprocess.Popen(
            _emulator_binary() + ["serve", "--json", "--broker", "--auto-approve", "adele@contoso.onmicrosoft.com",
                                  "--ca-dir", str(work)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(ROOT), env=env)
        processes.append(emulator)
        line = emulator.stdout.readline()
        if not line:
            raise RuntimeError("emulator did not start: " + emulator.stderr.read())
        info = json.loads(line)
        assert info["broker_bus_address"] == address
        yield info, env
    finally:
        for process in reversed(processes):
            process.kill()
            process.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
