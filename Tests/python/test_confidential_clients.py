"""Microsoft's MSAL for Python ConfidentialClientApplication, unchanged, against the emulator over HTTPS:
client credentials with a secret and with a certificate, on-behalf-of, and Graph with the tokens it gets."""
import base64
import datetime
import json
import warnings

import msal
import pytest
import requests
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

GRAPH_DEFAULT = ["https://graph.microsoft.com/.default"]
DAEMON_SECRET = "daemon-secret"
MIDDLE_TIER_SECRET = "middle-tier-secret"


def confidential(emulator, http_client, client_id, credential, authority=None):
    return msal.ConfidentialClientApplication(
        client_id, client_credential=credential, authority=authority or emulator["authority"],
        instance_discovery=False, http_client=http_client,
    )


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def emulator_session(emulator):
    session = requests.Session()
    session.verify, session.trust_env = emulator["ca_certificate"], False
    return session


def graph(emulator, path, access_token):
    return emulator_session(emulator).get(emulator["graph"] + path, headers={"Authorization": "Bearer " + access_token})


def make_certificate():
    """An RSA key and a self-signed certificate: (private key PEM, certificate PEM, SHA-1 thumbprint hex)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "MSAL for Python fidelity test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=30))
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    certificate_pem = certificate.public_bytes(serialization.Encoding.PEM).decode()
    return key_pem, certificate_pem, certificate.fingerprint(hashes.SHA1()).hex()


def register(emulator, client_id, certificate_pem):
    reply = emulator_session(emulator).post(
        emulator["https"] + "/_emulator/applications/%s/certificates" % client_id, data=certificate_pem)
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_client_credentials_with_secret_then_cache(emulator, http_client):
    app = confidential(emulator, http_client, emulator["daemon_client_id"], DAEMON_SECRET)
    result = app.acquire_token_for_client(GRAPH_DEFAULT)
    assert "access_token" in result, result
    assert result["token_source"] == "identity_provider"
    assert result["token_type"] == "Bearer" and "refresh_token" not in result and "id_token" not in result
    token = claims(result["access_token"])
    assert token["idtyp"] == "app" and token["roles"] == ["User.Read.All"]
    assert token["appid"] == emulator["daemon_client_id"] and token["tid"] == emulator["tenant_id"]

    # The second call is answered from MSAL's cache: no request.
    sent = len(http_client.sent)
    again = app.acquire_token_for_client(GRAPH_DEFAULT)
    assert again["token_source"] == "cache" and again["access_token"] == result["access_token"]
    assert len(http_client.sent) == sent

    users = graph(emulator, "/users", result["access_token"])
    assert users.status_code == 200, users.text
    assert emulator["username"] in [user["userPrincipalName"] for user in users.json()["value"]]


@pytest.mark.parametrize("form", ["thumbprint", "public_certificate"])
def test_client_credentials_with_certificate(emulator, http_client, form):
    key_pem, certificate_pem, sha1 = make_certificate()
    thumbprints = register(emulator, emulator["daemon_client_id"], certificate_pem)
    assert base64.urlsafe_b64decode(thumbprints["x5t"] + "==").hex() == sha1
    if form == "thumbprint":  # RS256 with x5t
        credential = {"private_key": key_pem, "thumbprint": sha1}
    else:  # PS256 with x5t#S256 and x5c
        credential = {"private_key": key_pem, "public_certificate": certificate_pem}
    app = confidential(emulator, http_client, emulator["daemon_client_id"], credential)
    result = app.acquire_token_for_client(GRAPH_DEFAULT)
    assert "access_token" in result, result
    token = claims(result["access_token"])
    assert token["azpacr"] == "2" and token["roles"] == ["User.Read.All"]


def test_unregistered_certificate_is_refused(emulator, http_client):
    key_pem, _, sha1 = make_certificate()
    app = confidential(emulator, http_client, emulator["daemon_client_id"], {"private_key": key_pem, "thumbprint": sha1})
    result = app.acquire_token_for_client(GRAPH_DEFAULT)
    assert result.get("error") == "invalid_client" and 700027 in result["error_codes"], result


def test_wrong_secret_is_invalid_client(emulator, http_client):
    app = confidential(emulator, http_client, emulator["daemon_client_id"], "not-the-daemon-secret")
    result = app.acquire_token_for_client(GRAPH_DEFAULT)
    assert result.get("error") == "invalid_client", result
    assert result["error_codes"] == [7000215]
    assert "not-the-daemon-secret" not in result["error_description"]


def test_client_credentials_need_a_tenant(emulator, http_client):
    common = emulator["https"] + "/common"
    app = confidential(emulator, http_client, emulator["daemon_client_id"], DAEMON_SECRET, authority=common)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # MSAL itself warns about /common here
        result = app.acquire_token_for_client(GRAPH_DEFAULT)
    assert result.get("error") == "invalid_request" and result["error_codes"] == [50059], result


def user_token_for_middle_tier(emulator, http_client):
    # MSAL's user-realm lookup before ROPC drops the authority's port (it would ask 127.0.0.1:443); after a 404 MSAL
    # records the host as having no such endpoint, which is what the emulator's answer would lead to: record it now.
    msal.authority.Authority._domains_without_user_realm_discovery.add("127.0.0.1")
    public = msal.PublicClientApplication(
        emulator["client_id"], authority=emulator["authority"], instance_discovery=False, http_client=http_client)
    scope = "api://%s/access_as_user" % emulator["middle_tier_client_id"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ROPC is deprecated for public clients
        result = public.acquire_token_by_username_password(emulator["username"], emulator["password"], scopes=[scope])
    assert "access_token" in result, result
    return result["access_token"]


def test_on_behalf_of_then_graph_me(emulator, http_client):
    user_token = user_token_for_middle_tier(emulator, http_client)
    assert claims(user_token)["aud"] == emulator["middle_tier_client_id"]
    middle_tier = confidential(emulator, http_client, emulator["middle_tier_client_id"], MIDDLE_TIER_SECRET)
    result = middle_tier.acquire_token_on_behalf_of(user_token, ["https://graph.microsoft.com/User.Read"])
    assert "access_token" in result, result
    assert result["id_token_claims"]["preferred_username"] == emulator["username"]
    assert "User.Read" in result["scope"].split()
    me = graph(emulator, "/me", result["access_token"])
    assert me.status_code == 200, me.text
    assert me.json()["userPrincipalName"] == emulator["username"]


def test_on_behalf_of_refuses_an_app_token(emulator, http_client):
    daemon = confidential(emulator, http_client, emulator["daemon_client_id"], DAEMON_SECRET)
    app_token = daemon.acquire_token_for_client(["api://%s/.default" % emulator["middle_tier_client_id"]])
    assert "access_token" in app_token, app_token
    middle_tier = confidential(emulator, http_client, emulator["middle_tier_client_id"], MIDDLE_TIER_SECRET)
    result = middle_tier.acquire_token_on_behalf_of(app_token["access_token"], ["https://graph.microsoft.com/User.Read"])
    assert result.get("error") == "unauthorized_client" and result["error_codes"] == [7000114], result


WEB_APP_CLIENT_ID = "3c4d5e6f-7a8b-4c9d-a0e1-f2a3b4c5d6e7"


def test_web_app_auth_code_then_silent(emulator, http_client, browser_session):
    """A web app: MSAL for Python's ConfidentialClientApplication signs the user in with the authorization code flow
    (PKCE, the app's secret), then gets the user's token silently."""
    from urllib.parse import parse_qs, urlparse
    from browser import drive

    app = confidential(emulator, http_client, WEB_APP_CLIENT_ID, "emulator-secret")
    redirect_uri = "http://localhost:8765/callback"
    flow = app.initiate_auth_code_flow(["User.Read"], redirect_uri=redirect_uri, login_hint=emulator["username"])
    outcome = drive(browser_session, flow["auth_uri"], emulator["username"], emulator["password"],
                    stop_at_redirect_to=redirect_uri)
    assert outcome.kind == "redirect"
    auth_response = {k: v[0] for k, v in parse_qs(urlparse(outcome.url).query).items()}
    result = app.acquire_token_by_auth_code_flow(flow, auth_response)
    assert "access_token" in result, result
    # (The emulator refuses a confidential client's code redemption without its secret: AADSTS7000218.)
    accounts = app.get_accounts()
    assert [a["username"] for a in accounts] == [emulator["username"]]
    silent = app.acquire_token_silent(["User.Read"], account=accounts[0])
    assert silent and silent["access_token"] == result["access_token"]
    assert graph(emulator, "/me", silent["access_token"]).json()["userPrincipalName"] == emulator["username"]

