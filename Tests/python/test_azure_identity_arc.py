"""azure-identity's ManagedIdentityCredential through the emulator's Azure Arc endpoints (the 401 challenge naming a
key file, then the key). MSAL for Python reads an Arc key only from /var/opt/azcmagent/tokens, so the case runs in a
private mount namespace with a fresh tmpfs on /var/opt: the machine's own /var/opt is never touched. Needs root (as
the test command runs in CI) for the namespace."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import _emulator_binary

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.skipif(os.geteuid() != 0, reason="a private mount namespace needs root")
def test_managed_identity_credential_through_azure_arc():
    script = ('mount -t tmpfs msal-arc /var/opt && mkdir -p /var/opt/azcmagent/tokens && exec "$0" "$@"')
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, sys.executable,
                           str(HERE / "arc_in_namespace.py"), *_emulator_binary()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["claims"]["appid"] == outcome["system_assigned"]
    assert outcome["claims"]["iss"].startswith(outcome["https"] + "/")
    assert outcome["cached"], "the second call was not answered from the credential's cache"
