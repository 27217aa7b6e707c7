"""Microsoft's MSAL for Python, unchanged, against the emulator over HTTPS."""
import base64
import hashlib
import json
import threading
import time
from urllib.parse import parse_qs, urlparse

import msal
import pytest
import requests

from browser import drive, use_scripted_browser

SCOPES = ["User.Read"]


def make_app(emulator, http_client, authority=None, client_id=None):
    return msal.PublicClientApplication(
        client_id or emulator["client_id"],
        authority=authority or emulator["authority"],
        instance_discovery=False,
        http_client=http_client,
    )


def graph_me(emulator, access_token):
    session = requests.Session()
    session.verify, session.trust_env = emulator["ca_certificate"], False
    return session.get(emulator["graph"] + "/me", headers={"Authorization": "Bearer " + access_token})


def test_device_code_flow_and_graph(emulator, http_client, browser_session):
    app = make_app(emulator, http_client)
    flow = app.initiate_device_flow(scopes=SCOPES)
    assert "user_code" in flow, flow
    assert flow["verification_uri"].endswith("/devicelogin")

    def approve():
        time.sleep(1.5)  # let MSAL see authorization_pending first
        outcome = drive(browser_session, flow["verification_uri"], emulator["username"], emulator["password"], user_code=flow["user_code"])
        assert outcome.kind == "page" and "device-done" in outcome.html

    approver = threading.Thread(target=approve)
    approver.start()
    result = app.acquire_token_by_device_flow(flow)
    approver.join()
    assert "access_token" in result, result
    assert result["id_token_claims"]["preferred_username"] == emulator["username"]
    assert result["token_type"] == "Bearer"
    polls = [u for m, u in http_client.sent if u.endswith("/token")]
    assert len(polls) >= 2  # at least one authorization_pending before success
    me = graph_me(emulator, result["access_token"])
    assert me.status_code == 200, me.text
    assert me.json()["userPrincipalName"] == emulator["username"]


@pytest.mark.parametrize("response_mode", [None, "form_post"])
def test_auth_code_flow(emulator, http_client, browser_session, response_mode):
    app = make_app(emulator, http_client)
    redirect_uri = "http://localhost:8765"
    kwargs = {"response_mode": response_mode} if response_mode else {}
    flow = app.initiate_auth_code_flow(SCOPES, redirect_uri=redirect_uri, login_hint=emulator["username"], **kwargs)
    outcome = drive(browser_session, flow["auth_uri"], emulator["username"], emulator["password"], stop_at_redirect_to=redirect_uri)
    if response_mode == "form_post":
        assert outcome.kind == "form_post" and outcome.url == redirect_uri
        auth_response = dict(outcome.fields)
    else:
        assert outcome.kind == "redirect"
        auth_response = {k: v[0] for k, v in parse_qs(urlparse(outcome.url).query).items()}
    assert auth_response["state"] == flow["state"]
    result = app.acquire_token_by_auth_code_flow(flow, auth_response)
    assert "access_token" in result, result
    # MSAL sends the SHA-256 hex of its nonce and checks the id_token echoes it.
    assert result["id_token_claims"]["nonce"] == hashlib.sha256(flow["nonce"].encode()).hexdigest()
    account = app.get_accounts()[0]
    assert account["username"] == emulator["username"]
    assert account["home_account_id"].endswith("." + emulator["tenant_id"])
    # The code is single use: a second redemption fails like Entra.
    again = app.acquire_token_by_auth_code_flow(dict(flow), auth_response)
    assert again.get("error") in ("invalid_grant", "invalid_request"), again


def test_interactive_silent_and_refresh(emulator, http_client):
    browser = use_scripted_browser(emulator["ca_certificate"], emulator["username"], emulator["password"])
    app = make_app(emulator, http_client)
    result = app.acquire_token_interactive(SCOPES, timeout=60, prompt="select_account")
    assert not browser.errors, browser.errors
    assert "access_token" in result, result
    assert result["token_source"] == "identity_provider"

    # A silent hit makes no request at all.
    account = app.get_accounts()[0]
    sent = len(http_client.sent)
    silent = app.acquire_token_silent(SCOPES, account=account)
    assert silent["access_token"] == result["access_token"]
    assert silent["token_source"] == "cache"
    assert len(http_client.sent) == sent

    # Force the cached access token to expire: the next silent call refreshes (one request) with a rotated RT.
    old_rt = next(iter(app.token_cache._cache["RefreshToken"].values()))["secret"]
    for entry in app.token_cache._cache["AccessToken"].values():
        entry["expires_on"] = str(int(time.time()) - 10)
        entry.pop("refresh_on", None)
    refreshed = app.acquire_token_silent(SCOPES, account=account)
    assert refreshed and "access_token" in refreshed, refreshed
    assert refreshed["token_source"] == "identity_provider"
    assert len(http_client.sent) == sent + 1 and http_client.sent[-1][1].endswith("/oauth2/v2.0/token")
    new_rt = next(iter(app.token_cache._cache["RefreshToken"].values()))["secret"]
    assert new_rt != old_rt
    assert graph_me(emulator, refreshed["access_token"]).status_code == 200


def test_b2c_sign_in(emulator, http_client):
    b2c_authority = emulator["https"] + "/fabrikamb2c.onmicrosoft.com/B2C_1_signupsignin"
    browser = use_scripted_browser(emulator["ca_certificate"], "carol@example.com", "Passw0rd!")
    app = make_app(emulator, http_client, authority=b2c_authority)
    result = app.acquire_token_interactive(["https://fabrikamb2c.onmicrosoft.com/api/demo.read"], timeout=60)
    assert not browser.errors, browser.errors
    assert "access_token" in result, result
    claims = result["id_token_claims"]
    assert claims["tfp"] == "B2C_1_signupsignin"
    account = app.get_accounts()[0]
    assert account["home_account_id"].split(".")[0].endswith("-b2c_1_signupsignin")
    silent = app.acquire_token_silent(["https://fabrikamb2c.onmicrosoft.com/api/demo.read"], account=account)
    assert silent and silent["token_source"] == "cache"


def test_b2c_forgot_password(emulator, http_client, browser_session):
    b2c_authority = emulator["https"] + "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signupsignin"
    app = make_app(emulator, http_client, authority=b2c_authority)
    redirect_uri = "http://localhost:8766"
    flow = app.initiate_auth_code_flow(["https://fabrikamb2c.onmicrosoft.com/api/demo.read"], redirect_uri=redirect_uri)
    outcome = drive(browser_session, flow["auth_uri"], forgot=True, stop_at_redirect_to=redirect_uri)
    query = parse_qs(urlparse(outcome.url).query)
    assert query["error"] == ["access_denied"]
    assert query["error_description"][0].startswith("AADB2C90118")


def test_accounts_signed_in_by_the_swift_tool_are_seen(emulator, http_client, browser_session, tmp_path):
    """`msal login` (this library, over plain HTTP) and MSAL for Python (over HTTPS, another port) share one cache
    file: both file the account under the host name without the port, so Python sees and uses it."""
    import json
    import os
    import subprocess

    from conftest import _msal_binary

    cache_file = tmp_path / "cache.json"
    swift_authority = emulator["http"] + "/" + emulator["tenant_id"]
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": os.environ.get("PATH", "")}
    login = subprocess.Popen(
        _msal_binary() + ["login", "--device-code", "--json", "--authority", swift_authority,
                              "--client-id", emulator["client_id"], "--cache", str(cache_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env)
    code = json.loads(login.stderr.readline())
    outcome = drive(browser_session, code["verification_uri"], emulator["username"], emulator["password"],
                    user_code=code["user_code"])
    assert outcome.kind == "page"
    out, err = login.communicate(timeout=60)
    assert login.returncode == 0, err

    cache = msal.SerializableTokenCache()
    cache.deserialize(cache_file.read_text())
    assert {a["environment"] for a in json.loads(cache_file.read_text())["Account"].values()} == {"127.0.0.1"}
    app = msal.PublicClientApplication(emulator["client_id"], authority=emulator["https"] + "/" + emulator["tenant_id"],
                                       instance_discovery=False, http_client=http_client, token_cache=cache)
    accounts = app.get_accounts()
    assert [a["username"] for a in accounts] == [emulator["username"]]
    before = len([u for m, u in http_client.sent if u.endswith("/token")])
    result = app.acquire_token_silent(SCOPES, account=accounts[0])
    assert result and "access_token" in result, result
    assert len([u for m, u in http_client.sent if u.endswith("/token")]) == before  # a cache hit


def test_continuous_access_evaluation_claims_challenge(emulator, http_client):
    """MSAL for Python with client_capabilities=["cp1"]: after the emulator revokes the user's session, Graph answers
    the earlier token with Entra's insufficient_claims challenge, and a silent request with the challenge's claims
    gets a token Graph accepts. (Runs last: the revocation only refuses tokens issued before it.)"""
    browser = use_scripted_browser(emulator["ca_certificate"], emulator["username"], emulator["password"])
    app = msal.PublicClientApplication(
        emulator["client_id"], authority=emulator["authority"], instance_discovery=False, http_client=http_client,
        client_capabilities=["cp1"])
    result = app.acquire_token_interactive(SCOPES, timeout=60, prompt="select_account")
    assert not browser.errors, browser.errors
    assert "access_token" in result, result
    assert graph_me(emulator, result["access_token"]).status_code == 200

    revoked = http_client.post(emulator["https"] + "/_emulator/revoke", data={"user": emulator["username"]})
    assert revoked.status_code == 200, revoked.text
    challenged = graph_me(emulator, result["access_token"])
    assert challenged.status_code == 401
    header = challenged.headers["WWW-Authenticate"]
    assert 'error="insufficient_claims"' in header
    claims = base64.b64decode(header.split('claims="', 1)[1].split('"', 1)[0]).decode()
    assert json.loads(claims)["access_token"]["nbf"]["essential"] is True

    account = app.get_accounts()[0]
    fresh = app.acquire_token_silent(SCOPES, account=account, claims_challenge=claims)
    assert fresh and "access_token" in fresh, fresh
    assert fresh["token_source"] == "identity_provider"
    assert graph_me(emulator, fresh["access_token"]).status_code == 200
