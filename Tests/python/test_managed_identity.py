"""Microsoft's MSAL for Python ManagedIdentityClient, unchanged, against the emulator's App Service and IMDS
managed identity endpoints (plain HTTP, as in Azure): system-assigned and user-assigned identities, the second call
from MSAL's cache, Graph with the token, and the endpoints' refusals."""
import base64
import json
import os

import msal
import pytest
import requests

from conftest import scoped_environment

GRAPH = "https://graph.microsoft.com"
# Every variable MSAL for Python reads to find its managed identity source.
SOURCE_VARIABLES = [
    "IDENTITY_ENDPOINT", "IDENTITY_HEADER", "IDENTITY_SERVER_THUMBPRINT", "MSI_ENDPOINT", "MSI_SECRET",
    "IMDS_ENDPOINT", "AZURE_POD_IDENTITY_AUTHORITY_HOST",
]


def environment(**values):
    """Sets exactly these source variables in os.environ (clearing the others), and restores them afterwards."""
    return scoped_environment(SOURCE_VARIABLES, **values)


def app_service(emulator, header=None):
    return environment(IDENTITY_ENDPOINT=emulator["identity_endpoint"], IDENTITY_HEADER=header or emulator["identity_header"])


def imds(emulator):
    return environment(AZURE_POD_IDENTITY_AUTHORITY_HOST=emulator["imds_endpoint"])


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def identities(emulator):
    user = emulator["user_assigned_identity_client_ids"][0]
    return [
        ("system-assigned", msal.SystemAssignedManagedIdentity(), emulator["system_assigned_identity_client_id"]),
        ("user-assigned", msal.UserAssignedManagedIdentity(client_id=user), user),
    ]


def graph_users(emulator, access_token):
    session = requests.Session()
    session.verify, session.trust_env = emulator["ca_certificate"], False
    return session.get(emulator["graph"] + "/users", headers={"Authorization": "Bearer " + access_token})


def acquire_twice_then_graph(emulator, http_client, identity, client_id):
    client = msal.ManagedIdentityClient(identity, http_client=http_client)
    result = client.acquire_token_for_client(resource=GRAPH)
    assert "access_token" in result, result
    assert result["token_source"] == "identity_provider"
    assert 86_000 < result["expires_in"] <= 86_400
    token = claims(result["access_token"])
    assert token["appid"] == client_id and token["idtyp"] == "app" and token["roles"] == ["User.Read.All"]
    assert token["aud"] == GRAPH and token["tid"] == emulator["tenant_id"] and token["xms_mirid"]

    # The second call is answered from MSAL's cache: no request.
    sent = len(http_client.sent)
    again = client.acquire_token_for_client(resource=GRAPH)
    assert again["token_source"] == "cache" and again["access_token"] == result["access_token"]
    assert len(http_client.sent) == sent

    users = graph_users(emulator, result["access_token"])
    assert users.status_code == 200, users.text
    assert emulator["username"] in [user["userPrincipalName"] for user in users.json()["value"]]


@pytest.mark.parametrize("which", [0, 1], ids=["system-assigned", "user-assigned"])
def test_app_service(emulator, http_client, which):
    _, identity, client_id = identities(emulator)[which]
    with app_service(emulator):
        assert msal.managed_identity.get_managed_identity_source() == msal.managed_identity.APP_SERVICE
        acquire_twice_then_graph(emulator, http_client, identity, client_id)
        assert all(url.startswith(emulator["identity_endpoint"]) for _, url in http_client.sent)


@pytest.mark.parametrize("which", [0, 1], ids=["system-assigned", "user-assigned"])
def test_imds(emulator, http_client, which):
    _, identity, client_id = identities(emulator)[which]
    with imds(emulator):
        assert msal.managed_identity.get_managed_identity_source() == msal.managed_identity.DEFAULT_TO_VM
        acquire_twice_then_graph(emulator, http_client, identity, client_id)
        assert all(url.startswith(emulator["imds_endpoint"] + "/metadata/identity/oauth2/token") for _, url in http_client.sent)


def test_app_service_refuses_a_wrong_identity_header(emulator, http_client):
    with app_service(emulator, header="not-the-identity-header"):
        result = msal.ManagedIdentityClient(
            msal.SystemAssignedManagedIdentity(), http_client=http_client).acquire_token_for_client(resource=GRAPH)
    assert "access_token" not in result and "error" in result, result
    assert result["error_description"].startswith("401, ")
    assert "not-the-identity-header" not in json.dumps(result)


def test_imds_refuses_an_unknown_identity_and_resource(emulator, http_client):
    with imds(emulator):
        unknown = msal.ManagedIdentityClient(
            msal.UserAssignedManagedIdentity(client_id="00000000-0000-0000-0000-000000000001"), http_client=http_client,
        ).acquire_token_for_client(resource=GRAPH)
        resource = msal.ManagedIdentityClient(
            msal.SystemAssignedManagedIdentity(), http_client=http_client,
        ).acquire_token_for_client(resource="https://nowhere.example")
    assert unknown == {"error": "invalid_request", "error_description": "Identity not found"}
    assert resource.get("error") == "invalid_resource" and "AADSTS500011" in resource["error_description"], resource


def test_the_environment_is_restored(emulator):
    before = {name: os.environ.get(name) for name in SOURCE_VARIABLES}
    with app_service(emulator):
        assert os.environ["IDENTITY_HEADER"] == emulator["identity_header"]
    assert {name: os.environ.get(name) for name in SOURCE_VARIABLES} == before
