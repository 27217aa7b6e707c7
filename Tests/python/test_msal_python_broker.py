"""Microsoft's own broker runtime accepts the emulated broker: MSAL for Python 1.39 with `enable_broker_on_linux`
and pymsalruntime signs in interactively, lists the account, gets tokens from its cache and then from the broker,
and removes the account, through `msal-emulator serve --broker` on a private session bus.

The conditions pymsalruntime needs (docs/emulator.md): a bus on a path socket with no service activation, an unlocked
Secret Service on that bus, the broker on the bus before pymsalruntime is imported, and an authority named by tenant
GUID whose metadata the emulator serves over HTTPS.
"""
import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


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
