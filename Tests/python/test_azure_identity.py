"""Microsoft's azure-identity (pip `azure-identity`), unchanged, against the emulator over HTTPS with its CA: one test
per credential type (client secret, certificate with and without its chain, workload identity, App Service and IMDS
managed identity (Azure Arc: test_azure_identity_arc.py), device code) and DefaultAzureCredential in an AKS-style environment (workload identity), each
token checked and the second call answered from the credential's cache (device code: one call, see its test)."""
import json
import os
import pathlib
import subprocess
import tempfile
import threading

import pytest
from azure.identity import (CertificateCredential, ClientSecretCredential, DefaultAzureCredential, DeviceCodeCredential,
                            ManagedIdentityCredential, TokenCachePersistenceOptions, WorkloadIdentityCredential)

from browser import drive
from conftest import _msal_binary, scoped_environment
from test_azure_cli import claims
from test_confidential_clients import make_certificate, register
from test_workload_identity import DAEMON_SUBJECT, mint

GRAPH_DEFAULT = "https://graph.microsoft.com/.default"
# Every variable azure-identity and MSAL for Python read to choose a credential or a managed identity source.
VARIABLES = [
    "AZURE_CLIENT_ID", "AZURE_TENANT_ID", "AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH", "AZURE_USERNAME",
    "AZURE_PASSWORD", "AZURE_FEDERATED_TOKEN_FILE", "AZURE_AUTHORITY_HOST", "IDENTITY_ENDPOINT", "IDENTITY_HEADER",
    "IDENTITY_SERVER_THUMBPRINT", "IMDS_ENDPOINT", "MSI_ENDPOINT", "MSI_SECRET", "AZURE_POD_IDENTITY_AUTHORITY_HOST",
    "REQUESTS_CA_BUNDLE", "AZURE_TOKEN_CREDENTIALS", "HOME", "DBUS_SESSION_BUS_ADDRESS",
]


def environment(emulator, **values):
    """Exactly these variables (plus the emulator's CA for requests) in os.environ; the others cleared (HOME kept), all
    restored."""
    return scoped_environment(VARIABLES, keep=("HOME",), REQUESTS_CA_BUNDLE=emulator["ca_certificate"], **values)


def entra(emulator, **kwargs):
    """What every Entra credential needs for the emulator: its HTTPS host as the authority, no instance discovery."""
    return dict(authority=emulator["https"], disable_instance_discovery=True, **kwargs)


def twice(credential, scope=GRAPH_DEFAULT):
    first = credential.get_token(scope)
    second = credential.get_token(scope)
    assert second.token == first.token, "the second call was not answered from the credential's cache"
    return claims(first.token)


def test_client_secret(emulator):
    with environment(emulator):
        token = twice(ClientSecretCredential(emulator["tenant_id"], emulator["daemon_client_id"], "daemon-secret",
                                             **entra(emulator)))
    assert token["aud"] == "https://graph.microsoft.com" and token["idtyp"] == "app"
    assert token["appid"] == emulator["daemon_client_id"] and token["roles"] == ["User.Read.All"]


@pytest.mark.parametrize("send_chain", [False, True])
def test_certificate(emulator, send_chain):
    key_pem, certificate_pem, _ = make_certificate()
    register(emulator, emulator["daemon_client_id"], certificate_pem)
    with environment(emulator):
        credential = CertificateCredential(emulator["tenant_id"], emulator["daemon_client_id"],
                                           certificate_data=(key_pem + certificate_pem).encode(),
                                           send_certificate_chain=send_chain, **entra(emulator))
        token = twice(credential)
    assert token["appid"] == emulator["daemon_client_id"] and token["azpacr"] == "2"


def federated_token_file(emulator):
    path = pathlib.Path(tempfile.mkdtemp(prefix="msal-federated-"), "token")
    path.write_text(mint(emulator, DAEMON_SUBJECT))
    return str(path)


def test_workload_identity(emulator):
    with environment(emulator):
        credential = WorkloadIdentityCredential(tenant_id=emulator["tenant_id"], client_id=emulator["daemon_client_id"],
                                                token_file_path=federated_token_file(emulator), authority=emulator["https"])
        token = twice(credential)
    assert token["appid"] == emulator["daemon_client_id"] and token["azpacr"] == "2"


def test_default_azure_credential_in_an_aks_style_environment(emulator):
    with environment(emulator, AZURE_AUTHORITY_HOST=emulator["https"], AZURE_TENANT_ID=emulator["tenant_id"],
                     AZURE_CLIENT_ID=emulator["daemon_client_id"], AZURE_FEDERATED_TOKEN_FILE=federated_token_file(emulator)):
        credential = DefaultAzureCredential(exclude_interactive_browser_credential=True)
        token = twice(credential)
    assert token["appid"] == emulator["daemon_client_id"] and token["tid"] == emulator["tenant_id"]


def test_managed_identity_app_service_and_imds(emulator):
    system = emulator["system_assigned_identity_client_id"]
    user = emulator["user_assigned_identity_client_ids"][0]
    sources = [
        dict(IDENTITY_ENDPOINT=emulator["identity_endpoint"], IDENTITY_HEADER=emulator["identity_header"]),
        dict(AZURE_POD_IDENTITY_AUTHORITY_HOST=emulator["imds_endpoint"]),
    ]
    for source in sources:
        for client_id, expected in [(None, system), (user, user)]:
            with environment(emulator, **source):
                credential = ManagedIdentityCredential(client_id=client_id) if client_id else ManagedIdentityCredential()
                token = twice(credential)
            assert token["appid"] == expected, (source, client_id)
            assert token["iss"].startswith(emulator["https"] + "/"), token["iss"]


def test_device_code(emulator, browser_session):
    approved = {}

    def prompt(verification_uri, user_code, expires_on):
        def approve():
            approved["page"] = drive(browser_session, verification_uri, emulator["username"], emulator["password"],
                                     user_code=user_code)
        threading.Thread(target=approve).start()

    with environment(emulator):
        credential = DeviceCodeCredential(client_id=emulator["client_id"], tenant_id=emulator["tenant_id"],
                                          prompt_callback=prompt, timeout=60, **entra(emulator))
        # One call: azure-identity's interactive credentials look their cached account up by the authority's
        # `host:port`, which MSAL records without the port, so against a server on a port of its own a second call
        # starts another device code flow (docs/emulator.md, "azure-identity").
        token = claims(credential.get_token("https://graph.microsoft.com/User.Read").token)
    assert approved["page"].kind == "page" and "device-done" in approved["page"].html
    assert token["preferred_username"] == emulator["username"]


def msal_app_token(emulator, cache, scope):
    """`msal token --client-secret ... --json` on `cache`, as the demo daemon."""
    done = subprocess.run(
        _msal_binary() + ["token", "--json", "--client-secret", "daemon-secret", "--client-id", emulator["daemon_client_id"],
                          "--authority", emulator["https"] + "/" + emulator["tenant_id"], "--cache", str(cache),
                          "--scopes", scope, "--ca-file", emulator["ca_certificate"]],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(pathlib.Path(cache).parent)},
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_persistent_cache_shared_with_msal(emulator):
    """azure-identity's persistent cache (unencrypted: no Secret Service here) is read by `msal` silently, and a token
    `msal` adds to it is azure-identity's next answer."""
    home = tempfile.mkdtemp(prefix="msal-identity-home-")
    options = TokenCachePersistenceOptions(allow_unencrypted_storage=True)

    def credential():
        return ClientSecretCredential(emulator["tenant_id"], emulator["daemon_client_id"], "daemon-secret",
                                      cache_persistence_options=options, **entra(emulator))

    with environment(emulator, HOME=home):
        token = credential().get_token(GRAPH_DEFAULT).token
    cache = pathlib.Path(home, ".IdentityService", "msal.cache.nocae")
    assert cache.is_file(), sorted(p.name for p in pathlib.Path(home).rglob("*"))
    read = msal_app_token(emulator, cache, GRAPH_DEFAULT)
    assert read["token_source"] == "cache" and read["access_token"] == token

    added = msal_app_token(emulator, cache, "api://msal-emulator-api/.default")
    assert added["token_source"] == "identity_provider"
    with environment(emulator, HOME=home):
        assert credential().get_token("api://msal-emulator-api/.default").token == added["access_token"]
