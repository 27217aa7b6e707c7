"""Workload identity with Microsoft's MSAL for Python: a token of the emulator's own federated issuer, minted through
`POST /_emulator/federated-tokens`, is the client assertion of the demo daemon's ConfidentialClientApplication."""
import base64
import json

import msal
import requests

GRAPH_DEFAULT = ["https://graph.microsoft.com/.default"]
DAEMON_SUBJECT = "system:serviceaccount:default:daemon"


def mint(emulator, subject):
    session = requests.Session()
    session.verify, session.trust_env = emulator["ca_certificate"], False
    reply = session.post(emulator["federated_tokens"], json={"subject": subject})
    assert reply.status_code == 200, reply.text
    assert reply.json()["issuer"] == emulator["federated_issuer"]
    return reply.json()["token"]


def daemon(emulator, http_client, token):
    return msal.ConfidentialClientApplication(
        # A callable, as a projected token file is read again whenever MSAL needs an assertion.
        emulator["daemon_client_id"], client_credential={"client_assertion": lambda: token}, authority=emulator["authority"],
        instance_discovery=False, http_client=http_client,
    )


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_a_trusted_federated_token_authenticates_the_daemon(emulator, http_client):
    result = daemon(emulator, http_client, mint(emulator, DAEMON_SUBJECT)).acquire_token_for_client(GRAPH_DEFAULT)
    assert "access_token" in result, result
    token = claims(result["access_token"])
    assert token["appid"] == emulator["daemon_client_id"] and token["appidacr"] == "2"
    assert token["roles"] == ["User.Read.All"]


def test_an_untrusted_subject_is_refused(emulator, http_client):
    token = mint(emulator, "system:serviceaccount:default:intruder")
    result = daemon(emulator, http_client, token).acquire_token_for_client(GRAPH_DEFAULT)
    assert result.get("error") == "invalid_client" and result["error_codes"] == [700213], result
    assert token not in json.dumps(result)
