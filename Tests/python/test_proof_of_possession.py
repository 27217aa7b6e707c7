"""Proof of possession across implementations: MSAL for Python asking the emulator for a token bound to its own key
gets one (and the emulator's Graph accepts an SHR MSAL.NET's way, PS256); the `msal` tool's signed requests
validate under the independent validator (pop_validator.py), and a second URL reuses the cached bound token with
the same key."""
import base64
import json
import os
import subprocess
import warnings

import msal
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

import pop_validator
from conftest import _msal_binary

SCOPES = ["User.Read"]


def issuer_keys(emulator):
    session = requests.Session()
    session.verify, session.trust_env = emulator["ca_certificate"], False
    config = session.get(emulator["authority"] + "/v2.0/.well-known/openid-configuration").json()
    return session.get(config["jwks_uri"]).json()["keys"]


def signed_in_cache(emulator, http_client, tmp_path):
    cache = msal.SerializableTokenCache()
    msal.authority.Authority._domains_without_user_realm_discovery.add("127.0.0.1")
    app = msal.PublicClientApplication(emulator["client_id"], authority=emulator["authority"], instance_discovery=False,
                                       http_client=http_client, token_cache=cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the password grant is deprecated; it is the emulator's quickest sign-in
        result = app.acquire_token_by_username_password(emulator["username"], emulator["password"], scopes=SCOPES)
    assert "access_token" in result, result
    cache_file = tmp_path / "cache.json"
    cache_file.write_text(cache.serialize())
    return app, cache_file


def test_msal_for_python_with_its_own_key_gets_a_bound_token(emulator, http_client, tmp_path):
    app, _ = signed_in_cache(emulator, http_client, tmp_path)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_numbers()
    jwk = {"e": pop_validator.b64url(public.e.to_bytes(3, "big")), "kty": "RSA",
           "n": pop_validator.b64url(public.n.to_bytes(256, "big"))}
    kid = pop_validator.thumbprint(jwk)
    req_cnf = pop_validator.b64url(json.dumps({"kid": kid}).encode())
    account = app.get_accounts()[0]
    result = app.acquire_token_silent_with_error(
        SCOPES, account, force_refresh=True, data={"token_type": "pop", "req_cnf": req_cnf, "key_id": kid})
    assert result and result.get("token_type") == "pop", result
    _, claims, _, _ = pop_validator.parts(result["access_token"])
    assert claims["cnf"]["kid"] == kid
    # The emulator's Graph takes a signed request made as MSAL.NET makes it (PS256, typ pop).
    me = emulator["graph"] + "/me"
    shr = pop_validator.make_shr(result["access_token"], key, "GET", me, nonce="n-1")
    pop_validator.validate(shr, "GET", me, issuer_keys(emulator))
    session = requests.Session()
    session.verify, session.trust_env = emulator["ca_certificate"], False
    assert session.get(me, headers={"Authorization": "PoP " + shr}).status_code == 200
    assert session.get(me, headers={"Authorization": "Bearer " + result["access_token"]}).status_code == 401
    # A raw (not base64url) req_cnf is refused.
    raw = app.acquire_token_silent_with_error(
        SCOPES, account, force_refresh=True, data={"token_type": "pop", "req_cnf": json.dumps({"kid": kid}), "key_id": kid})
    assert raw and raw.get("error") == "invalid_request", raw


def run_msal(arguments, tmp_path):
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": os.environ.get("PATH", "")}
    return subprocess.run(_msal_binary() + arguments, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_the_tools_signed_requests_validate_and_the_bound_token_is_reused(emulator, http_client, tmp_path):
    _, cache_file = signed_in_cache(emulator, http_client, tmp_path)
    common = ["--authority", emulator["authority"], "--client-id", emulator["client_id"], "--cache", str(cache_file),
              "--scopes", "User.Read", "--ca-file", emulator["ca_certificate"]]
    me = emulator["graph"] + "/me"
    first = run_msal(["token", "--json", "--pop-url", me] + common, tmp_path)
    assert first.returncode == 0, first.stderr
    printed = json.loads(first.stdout)
    assert printed["token_type"] == "Pop"
    keys = issuer_keys(emulator)
    claims = pop_validator.validate(printed["access_token"], "GET", me, keys)
    _, shr_claims, _, _ = pop_validator.parts(printed["access_token"])
    assert claims["cnf"]["kid"] == printed["key_id"] == pop_validator.thumbprint(shr_claims["cnf"]["jwk"])

    users = emulator["graph"] + "/users"
    second = run_msal(["token", "--pop-url", users, "--pop-method", "POST", "--pop-nonce", "server-nonce"] + common, tmp_path)
    assert second.returncode == 0, second.stderr
    shr = second.stdout.strip()
    pop_validator.validate(shr, "POST", users, keys)
    _, second_claims, _, _ = pop_validator.parts(shr)
    assert second_claims["at"] == shr_claims["at"]  # the cached bound token, the same key
    assert second_claims["nonce"] == "server-nonce" and second_claims["m"] == "POST"
    try:
        pop_validator.validate(shr, "GET", users, keys)
        raise AssertionError("a request signed for POST validated for GET")
    except pop_validator.Invalid:
        pass
    # The bound token is in the cache apart from bearer tokens, where MSAL for Python's bearer lookup never sees it.
    document = json.loads(cache_file.read_text())
    assert any(entry.get("key_id") == printed["key_id"] for entry in document["AccessToken_With_AuthScheme"].values())
    assert all(entry.get("token_type", "Bearer") == "Bearer" for entry in document["AccessToken"].values())
