"""Microsoft's Azure CLI (pip `azure-cli`), unchanged, against the emulator over HTTPS with its CA: the documented
custom-cloud set-up (`az cloud register` with endpoint discovery, `az cloud set`, instance discovery off), service
principal sign-in with a secret and with a certificate, `az account show` / `list` / `get-access-token` answered from az's cache on repeat,
device code sign-in as the default user, the token cache shared both ways with `msal` (its defaults), `az logout`;
and azure-identity's AzureCliCredential through this az. The cases share one az configuration directory and run
in order, so that az's start-up (over a second each) is paid as few times as possible."""
import contextlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import pytest

from browser import drive
from conftest import _msal_binary
from test_confidential_clients import make_certificate, register

DEMO_TENANT = "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13"
DEMO_SUBSCRIPTION = "6e5d4c3b-2a19-4f8e-9d7c-6b5a4f3e2d1c"
DAEMON = "7d3e1b2a-4c5f-4e6d-8a9b-0c1d2e3f4a5b"
ARM = "https://management.core.windows.net/"
AZURE_CLI = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"


def az_program():
    beside = pathlib.Path(sys.executable).with_name("az")
    found = str(beside) if beside.exists() else shutil.which("az")
    if not found:
        pytest.fail("the Azure CLI (pip azure-cli) is not installed; scripts/test.sh installs it")
    return found


class AzureCLI:
    """Runs `az` with its own configuration directory, trusting only the emulator's CA."""

    def __init__(self, emulator):
        self.program = az_program()
        self.home = tempfile.mkdtemp(prefix="msal-az-")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home,
            "AZURE_CONFIG_DIR": str(pathlib.Path(self.home, ".azure")),
            "REQUESTS_CA_BUNDLE": emulator["ca_certificate"],
            # The documented custom-cloud set-up: MSAL's instance discovery asks Microsoft's cloud otherwise.
            "AZURE_CORE_INSTANCE_DISCOVERY": "false",
            "AZURE_CORE_COLLECT_TELEMETRY": "false", "AZURE_CORE_SURVEY_MESSAGE": "false",
            "AZURE_CORE_NO_COLOR": "true", "AZURE_CORE_ONLY_SHOW_ERRORS": "true",
        }

    def run(self, *args, timeout=120):
        done = subprocess.run([self.program, *args, "--output", "json"], env=self.env, capture_output=True, text=True,
                              timeout=timeout)
        assert done.returncode == 0, f"az {' '.join(args)} exited {done.returncode}: {done.stderr}"
        return json.loads(done.stdout) if done.stdout.strip() else None

    def popen(self, *args):
        return subprocess.Popen([self.program, *args, "--output", "json"], env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    @contextlib.contextmanager
    def as_process_environment(self):
        """This az's environment (its directory first on PATH) as os.environ, for code that runs az itself."""
        saved = dict(os.environ)
        try:
            os.environ.clear()
            os.environ.update(self.env)
            os.environ["PATH"] = str(pathlib.Path(self.program).parent) + os.pathsep + self.env["PATH"]
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def cache(self):
        return json.loads(pathlib.Path(self.env["AZURE_CONFIG_DIR"], "msal_token_cache.json").read_text())


def msal_token(emulator, az, scope):
    """`msal token --json` with its defaults on az's own cache file, as az's client, in the organizations authority."""
    done = subprocess.run(
        _msal_binary() + ["token", "--json", "--cache", str(pathlib.Path(az.env["AZURE_CONFIG_DIR"], "msal_token_cache.json")),
                          "--client-id", AZURE_CLI, "--authority", emulator["https"] + "/organizations",
                          "--scopes", scope, "--ca-file", emulator["ca_certificate"]],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": az.home}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def msal_chain(emulator, az, scope, with_az):
    """`msal token --chain --chain-steps azure-cli --json` in az's environment; with_az=False leaves az off PATH, so
    that only az's cache can answer."""
    path = os.environ.get("PATH", "/usr/bin:/bin")
    if with_az:
        path = str(pathlib.Path(az.program).parent) + os.pathsep + path
    else:
        path = os.pathsep.join(p for p in path.split(os.pathsep) if not pathlib.Path(p, "az").exists())
    env = dict(az.env, PATH=path)
    done = subprocess.run(_msal_binary() + ["token", "--chain", "--chain-steps", "azure-cli", "--json", "--scopes", scope],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "azure cli" in done.stderr
    return json.loads(done.stdout)


def claims(token):
    import base64
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_azure_cli_signs_in_and_reuses_its_tokens(emulator, browser_session):
    az = AzureCLI(emulator)
    https = emulator["https"]

    # Endpoint discovery: GET {resource manager}/metadata/endpoints, with the trailing slash az keeps.
    az.run("cloud", "register", "--name", "MSALEmulator", "--endpoint-resource-manager", https + "/")
    az.run("cloud", "set", "--name", "MSALEmulator")
    cloud = az.run("cloud", "show")
    assert cloud["endpoints"]["activeDirectory"].rstrip("/") == https
    assert cloud["endpoints"]["activeDirectoryResourceId"] == ARM

    # A service principal with a secret: the token is for ARM, and ARM lists the demo subscription.
    accounts = az.run("login", "--service-principal", "--username", DAEMON, "--password", "daemon-secret",
                      "--tenant", DEMO_TENANT)
    assert [a["id"] for a in accounts] == [DEMO_SUBSCRIPTION]
    shown = az.run("account", "show")
    assert shown["id"] == DEMO_SUBSCRIPTION and shown["tenantId"] == DEMO_TENANT
    assert shown["user"] == {"name": DAEMON, "type": "servicePrincipal"}
    assert [a["id"] for a in az.run("account", "list")] == [DEMO_SUBSCRIPTION]

    first = az.run("account", "get-access-token")
    assert claims(first["accessToken"])["aud"] == ARM
    assert first["subscription"] == DEMO_SUBSCRIPTION and first["tenant"] == DEMO_TENANT
    # Repeated calls are answered from az's cache: the same token, not a new one.
    assert az.run("account", "get-access-token")["accessToken"] == first["accessToken"]
    graph = az.run("account", "get-access-token", "--resource", "https://graph.microsoft.com")
    assert claims(graph["accessToken"])["aud"] == "https://graph.microsoft.com"
    assert az.run("account", "get-access-token", "--resource", "https://graph.microsoft.com")["accessToken"] == graph["accessToken"]
    scoped = az.run("account", "get-access-token", "--scope", "https://graph.microsoft.com/.default")
    assert scoped["accessToken"] == graph["accessToken"]
    # The credential chain's Azure CLI step: az's cached token read directly (az is not even on PATH)...
    chained = msal_chain(emulator, az, "https://graph.microsoft.com/.default", with_az=False)
    assert chained["step"] == "azure cli" and chained["access_token"] == graph["accessToken"]
    # ...and for a scope az has no token for, az runs.
    api = msal_chain(emulator, az, "api://msal-emulator-api/.default", with_az=True)
    assert api["step"] == "azure cli" and claims(api["access_token"])["appid"] == DAEMON
    # azure-identity's AzureCliCredential runs this az, signed in to the emulator, and gets az's cached token.
    with az.as_process_environment():
        from azure.identity import AzureCliCredential
        assert AzureCliCredential().get_token("https://graph.microsoft.com/.default").token == graph["accessToken"]
    az.run("logout")
    assert az.run("account", "list") == []

    # A service principal with a certificate (a PEM file with its key and certificate, as az takes it).
    key_pem, certificate_pem, _ = make_certificate()
    register(emulator, DAEMON, certificate_pem)
    pem = pathlib.Path(az.home, "daemon.pem")
    pem.write_text(key_pem + certificate_pem)
    accounts = az.run("login", "--service-principal", "--username", DAEMON, "--certificate", str(pem),
                      "--tenant", DEMO_TENANT)
    assert [a["id"] for a in accounts] == [DEMO_SUBSCRIPTION]
    certified = az.run("account", "get-access-token", "--resource", "https://graph.microsoft.com")
    token = claims(certified["accessToken"])
    assert token["appid"] == DAEMON and token["azpacr"] == "2"  # authenticated with a certificate
    az.run("logout")

    # The default user through the device code flow (no tenant: az lists the user's tenants, then subscriptions).
    login = az.popen("login", "--use-device-code")
    prompt = ""
    for line in login.stderr:
        prompt += line
        if "enter the code" in line:
            break
    match = re.search(r"open the page (\S+) and enter the code (\S+)", prompt)
    assert match, prompt

    outcome = {}

    def approve():
        outcome["page"] = drive(browser_session, match.group(1), emulator["username"], emulator["password"],
                                user_code=match.group(2))

    approver = threading.Thread(target=approve)
    approver.start()
    approver.join(timeout=60)
    stdout, stderr = login.communicate(timeout=120)
    assert login.returncode == 0, prompt + stderr
    assert outcome["page"].kind == "page" and "device-done" in outcome["page"].html
    subscriptions = json.loads(stdout)
    assert [s["id"] for s in subscriptions] == [DEMO_SUBSCRIPTION]
    assert subscriptions[0]["user"] == {"name": emulator["username"], "type": "user"}

    user_token = az.run("account", "get-access-token")
    token_claims = claims(user_token["accessToken"])
    assert token_claims["aud"] == ARM and token_claims["preferred_username"] == emulator["username"]
    assert az.run("account", "get-access-token")["accessToken"] == user_token["accessToken"]
    chained = msal_chain(emulator, az, ARM + "/.default", with_az=False)
    assert chained["step"] == "azure cli" and chained["access_token"] == user_token["accessToken"]

    # The cache both ways. `msal` with its defaults (client capabilities included) reads az's token silently...
    from_az = msal_token(emulator, az, ARM + "/.default")
    assert from_az["metadata"]["token_source"] == "cache", from_az
    assert from_az["access_token"] == user_token["accessToken"]
    # ...and a token `msal` gets with az's (family) refresh token is az's next answer, from az's cache.
    from_msal = msal_token(emulator, az, "https://graph.microsoft.com/.default")
    assert from_msal["metadata"]["token_source"] == "identity_provider", from_msal
    graph_user = az.run("account", "get-access-token", "--resource", "https://graph.microsoft.com")
    assert graph_user["accessToken"] == from_msal["access_token"]
    assert az.run("account", "get-access-token", "--resource", "https://graph.microsoft.com")["accessToken"] == graph_user["accessToken"]
    # az's cache holds `.default` in the stored target, as Entra's answers make it.
    targets = [entry["target"] for entry in az.cache()["AccessToken"].values()]
    assert any("https://management.core.windows.net//.default" in target for target in targets), targets
    az.run("logout")
