"""README's cross-SDK cache promise through the `msal` tool with its defaults (it declares the cp1 client capability):
a token MSAL for Python cached is served by `msal token` from the cache, with no request at all."""
import json
import os
import subprocess
import warnings

import msal

from conftest import _msal_binary

SCOPES = ["User.Read"]
GRAPH_DEFAULT = "https://graph.microsoft.com/.default"


def run_msal(arguments, tmp_path, extra_env=None):
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": os.environ.get("PATH", "")}
    env.update(extra_env or {})
    return subprocess.run(_msal_binary() + arguments, capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)


def python_cache(cache_file):
    cache = msal.SerializableTokenCache()
    if cache_file.exists():
        cache.deserialize(cache_file.read_text())
    return cache


def save(cache, cache_file):
    cache_file.write_text(cache.serialize())


def test_a_user_token_msal_for_python_cached_costs_the_tool_no_request(emulator, http_client, tmp_path):
    cache_file = tmp_path / "cache.json"
    cache = python_cache(cache_file)
    # MSAL for Python's user-realm lookup before the password grant drops the authority's port; a 404 there would
    # record the host as having no such endpoint: record it now (as test_confidential_clients does).
    msal.authority.Authority._domains_without_user_realm_discovery.add("127.0.0.1")
    app = msal.PublicClientApplication(emulator["client_id"], authority=emulator["authority"],
                                       instance_discovery=False, http_client=http_client, token_cache=cache)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the password grant is deprecated; it is the emulator's quickest sign-in
        result = app.acquire_token_by_username_password(emulator["username"], emulator["password"], scopes=SCOPES)
    assert "access_token" in result, result
    save(cache, cache_file)

    # The tool's defaults: it declares cp1, and the Python token carries no capability marker.
    out = run_msal(["token", "--json", "--debug", "--authority", emulator["http"] + "/" + emulator["tenant_id"],
                    "--client-id", emulator["client_id"], "--cache", str(cache_file), "--scopes", "User.Read"], tmp_path)
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert printed["access_token"] == result["access_token"]
    assert printed["metadata"]["token_source"] == "cache"
    assert "HTTP " not in out.stderr, out.stderr  # the redacted trace names every request; there was none


def test_an_app_token_msal_for_python_cached_costs_the_tool_no_request(emulator, http_client, tmp_path):
    cache_file = tmp_path / "cache.json"
    cache = python_cache(cache_file)
    app = msal.ConfidentialClientApplication(
        emulator["daemon_client_id"], client_credential="daemon-secret", authority=emulator["authority"],
        instance_discovery=False, http_client=http_client, token_cache=cache)
    result = app.acquire_token_for_client(scopes=[GRAPH_DEFAULT])
    assert "access_token" in result, result
    save(cache, cache_file)

    out = run_msal(["token", "--json", "--debug", "--authority", emulator["http"] + "/" + emulator["tenant_id"],
                    "--client-id", emulator["daemon_client_id"], "--cache", str(cache_file),
                    "--scopes", GRAPH_DEFAULT], tmp_path, {"MSAL_CLIENT_SECRET": "daemon-secret"})
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert printed["access_token"] == result["access_token"]
    assert printed["token_source"] == "cache"
    assert "HTTP " not in out.stderr, out.stderr
    assert "daemon-secret" not in out.stderr


def test_an_app_token_the_tool_cached_costs_it_no_request_the_next_time(emulator, tmp_path):
    cache_file = tmp_path / "cache.json"
    arguments = ["token", "--json", "--debug", "--authority", emulator["http"] + "/" + emulator["tenant_id"],
                 "--client-id", emulator["daemon_client_id"], "--cache", str(cache_file), "--scopes", GRAPH_DEFAULT]
    first = run_msal(arguments, tmp_path, {"MSAL_CLIENT_SECRET": "daemon-secret"})
    assert first.returncode == 0, first.stderr
    second = run_msal(arguments, tmp_path, {"MSAL_CLIENT_SECRET": "daemon-secret"})
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout)["access_token"] == json.loads(first.stdout)["access_token"]
    assert json.loads(second.stdout)["token_source"] == "cache"
    assert "HTTP " not in second.stderr, second.stderr
