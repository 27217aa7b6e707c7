"""Run by test_azure_identity_arc.py inside a private mount namespace whose /var/opt is a fresh tmpfs: starts the
emulator with its Azure Arc key files in /var/opt/azcmagent/tokens (the only place MSAL for Python reads an Arc key
from on Linux), then gets a token twice with azure-identity's ManagedIdentityCredential through the Arc endpoints.
Prints one JSON line: the two tokens' claims and whether the second call was the first's token."""
import base64
import json
import os
import pathlib
import subprocess
import sys
import tempfile

TOKENS = "/var/opt/azcmagent/tokens"


def claims(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def main(emulator_argv):
    workdir = tempfile.mkdtemp(prefix="msal-arc-")
    config = pathlib.Path(workdir, "config.json")
    config.write_text(json.dumps({"arcTokenDirectory": TOKENS}))
    emulator = subprocess.Popen(emulator_argv + ["serve", "--json", "--config", str(config), "--ca-dir", workdir],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        summary = json.loads(emulator.stdout.readline())
        for name in list(os.environ):
            if name.startswith(("AZURE_", "IDENTITY_", "IMDS_", "MSI_")):
                del os.environ[name]
        os.environ.update({"IDENTITY_ENDPOINT": summary["arc_endpoint"], "IMDS_ENDPOINT": summary["arc_imds_endpoint"],
                           "REQUESTS_CA_BUNDLE": summary["ca_certificate"]})
        from azure.identity import ManagedIdentityCredential
        credential = ManagedIdentityCredential()
        first = credential.get_token("https://graph.microsoft.com/.default")
        second = credential.get_token("https://graph.microsoft.com/.default")
        print(json.dumps({"claims": claims(first.token), "cached": second.token == first.token,
                          "system_assigned": summary.get("system_assigned_identity_client_id"),
                          "https": summary["https"]}))
    finally:
        emulator.terminate()
        emulator.wait()


if __name__ == "__main__":
    main(sys.argv[1:])
