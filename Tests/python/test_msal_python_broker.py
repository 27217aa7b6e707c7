"""Microsoft's own broker runtime accepts the emulated broker: MSAL for Python 1.39 with `enable_broker_on_linux`
and pymsalruntime signs in interactively, lists the account, gets tokens from its cache and then from the broker,
and removes the account, through `msal-emulator serve --broker` on a private session bus.

The conditions pymsalruntime needs (docs/emulator.md): a bus on a path socket with no service activation, an unlocked
Secret Service on that bus, the broker on the bus before pymsalruntime is imported, and an authority named by tenant
GUID whose metadata the emulator serves over HTTPS.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ROOT, _emulator_binary

REQUIRED = os.environ.get("MSAL_BROKER_REQUIRED") == "1"
HERE = pathlib.Path(__file__).resolve().parent


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
        if REQUIRED:
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


def test_msal_python_signs_in_through_the_emulated_broker(brokered_bus):
    info, env = brokered_bus
    authority = f"{info['https']}/{info['tenant_id']}"
    client_env = dict(env, REQUESTS_CA_BUNDLE=info["ca_certificate"])
    run = subprocess.run([sys.executable, str(HERE / "broker_client.py"), authority, info["client_id"]],
                         env=client_env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["broker_enabled"], "pymsalruntime found no broker on the bus"
    interactive = result["interactive"]
    assert interactive["token_source"] == "broker", interactive
    assert interactive["deviceid"], "the brokered access token is not bound to the device"
    assert interactive["username"] == "adele@contoso.onmicrosoft.com"
    assert result["accounts"] == ["adele@contoso.onmicrosoft.com"]
    # The same scope again: MSAL for Python's own cache; a new one: the broker.
    assert result["silent_same_scope"]["token_source"] == "cache", result["silent_same_scope"]
    assert result["silent_new_scope"]["token_source"] == "broker", result["silent_new_scope"]
    assert result["silent_new_scope"]["deviceid"] == interactive["deviceid"]
    assert result["accounts_after_remove"] == []
