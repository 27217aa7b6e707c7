"""Proof of possession through Microsoft's own broker runtime: pymsalruntime, called directly (MSAL for Python
declines proof of possession through the broker on Linux), asks the emulated broker on a private session bus for a
token bound for GET on Graph's /me, interactively, then silently for another URL. Each authorization header carries a
signed HTTP request that the independent validator (pop_validator.py) accepts and the emulator's Graph takes, and the
broker keeps its token, so both requests carry the same one.

What msalruntime sends and reads (0.20.7): `set_pop_params` becomes `popParams` {httpMethod, uriHost (the host with
its port), uriPath, nonce, clientClaims, homeAccountId}; of the broker's answer it reads `accessToken` and
`accessTokenType` only, type 1 marking an access token the broker already signed, and answers `pop <accessToken>` as
the authorization header. The emulated broker therefore answers the signed request as `accessToken`.
"""
import json
import pathlib
import subprocess
import sys

import requests

import pop_validator

HERE = pathlib.Path(__file__).resolve().parent


def issuer_keys(session, info):
    authority = f"{info['https']}/{info['tenant_id']}"
    config = session.get(authority + "/v2.0/.well-known/openid-configuration").json()
    return session.get(config["jwks_uri"]).json()["keys"]


def check_signed_requests(info, answers, urls):
    """Each answer's header validates for its URL and Graph takes it; both carry the broker's one token."""
    session = requests.Session()
    session.verify, session.trust_env = info["ca_certificate"], False
    keys = issuer_keys(session, info)
    tokens = []
    for answer, url in zip(answers, urls):
        assert "error" not in answer, answer
        assert answer["is_pop_authorization"] is not False  # None: this pymsalruntime cannot say
        scheme, _, shr = answer["authorization_header"].partition(" ")
        assert scheme.lower() == "pop", scheme
        header, claims, _, _ = pop_validator.parts(shr)
        assert header.get("typ") == "pop", "the header carries a bare access token, not a signed request"
        token_claims = pop_validator.validate(shr, "GET", url, keys)
        assert token_claims["cnf"]["kid"] == pop_validator.thumbprint(claims["cnf"]["jwk"])
        assert claims["m"] == "GET" and claims["nonce"] == answer["nonce"]
        assert session.get(url, headers={"Authorization": answer["authorization_header"]}).status_code == 200
        tokens.append(claims["at"])
    same_token = tokens[0] == tokens[1]
    assert same_token, "the broker did not keep its token for the second URL"
    # A signed request is for its own URL only.
    assert session.get(urls[0], headers={"Authorization": answers[1]["authorization_header"]}).status_code == 401


def test_pymsalruntime_gets_signed_requests_through_the_emulated_broker(brokered_bus):
    info, env = brokered_bus
    urls = [info["https"] + "/v1.0/me", info["https"] + "/v1.0/users/" + info["username"]]
    run = subprocess.run([sys.executable, str(HERE / "broker_pop_client.py"), f"{info['https']}/{info['tenant_id']}",
                          info["client_id"]] + urls, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result.get("username") == info["username"], result["interactive"]
    check_signed_requests(info, [result["interactive"], result["silent"]], urls)


def test_the_tool_gets_the_brokers_signed_requests(brokered_bus, tmp_path):
    """`msal login --broker`, then `msal token --pop-url` for two URLs: each printed signed request validates for its
    URL under the independent validator, is the broker's (its key, the token the broker keeps), and `key_id` names
    that key."""
    from conftest import _msal_binary
    info, env = brokered_bus
    tool_env = dict(env, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"), XDG_STATE_HOME=str(tmp_path / "state"))
    common = ["--authority", f"{info['https']}/{info['tenant_id']}", "--client-id", info["client_id"],
              "--ca-file", info["ca_certificate"], "--scopes", "User.Read"]
    login = subprocess.run(_msal_binary() + ["login", "--broker", "--emulator-auto-approve"] + common, env=tool_env,
                           capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert login.returncode == 0, login.stderr
    urls = [info["https"] + "/v1.0/me", info["https"] + "/v1.0/users/" + info["username"]]
    answers = []
    for url in urls:
        run = subprocess.run(_msal_binary() + ["token", "--json", "--pop-url", url], env=tool_env, capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert run.returncode == 0, run.stderr
        printed = json.loads(run.stdout)
        assert printed["token_type"] == "Pop" and printed["metadata"]["token_source"] == "broker", printed["metadata"]
        _, claims, _, _ = pop_validator.parts(printed["access_token"])
        assert printed["key_id"] == pop_validator.thumbprint(claims["cnf"]["jwk"])
        answers.append({"authorization_header": "PoP " + printed["access_token"], "is_pop_authorization": True,
                        "nonce": claims["nonce"]})
    check_signed_requests(info, answers, urls)
