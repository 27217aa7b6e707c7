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


def test_no_sign_in_is_lost_while_msal_for_python_writes_the_same_cache():
    """8 `msal login --device-code` processes (the tool's defaults) x 6 rounds while 2 MSAL for Python processes save
    into the same file in a loop through msal-extensions (its lock, a cache of about 2.6 MB): every sign-in the user
    completed is kept with a refresh token that still works, MSAL for Python never gets a LockError, and nothing
    either side saved is lost (unless msal-extensions itself went on without its lock, which it does after 5 s of
    waiting; then its own in-place rewrites can lose entries with no other writer at all)."""
    import sys
    from conftest import ROOT

    binaries = os.path.dirname(_msal_binary()[-1])
    out = subprocess.run([sys.executable, os.path.join(str(ROOT), "Benchmarks", "cache_contention.py"), "--rounds", "6",
                          "--bin", binaries], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    print("cache contention:", json.dumps(report))
    assert report["signins_attempted"] == 48
    assert report["signins_failed"] == 0, report["failure_messages"]
    assert report["stale_refresh_tokens"] == 0 and report["refresh_errors"] == []
    assert report["swift_accounts_missing"] == 0
    assert report["python_lock_errors"] == 0
    if report["python_create_failures"] == 0:
        assert report["python_accounts_missing"] == 0 and report["python_padding_restores"] == 0


def test_the_tool_never_sees_a_save_half_done(tmp_path):
    """`msal accounts` (the tool's defaults) 30 times while MSAL for Python rewrites a 5 MB cache in place (truncate,
    then write) under msal-extensions' lock, again and again: every run lists the account."""
    import sys
    import time
    from conftest import ROOT

    peer = os.path.join(str(ROOT), "Tests", "python", "cache_sharing_peer.py")
    cache_file = tmp_path / "cache.json"
    saved = subprocess.run([sys.executable, peer, "write", str(cache_file), "1", "1", "portalocker"],
                           capture_output=True, text=True, timeout=120)
    assert saved.returncode == 0, saved.stderr
    arguments = ["accounts", "--json", "--cache", str(cache_file), "--client-id", "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                 "--authority", "https://login.microsoftonline.com/organizations"]
    # The rewriter runs until this test stops it (600 s is only its own bound), so every read overlaps a rewrite
    # however slowly the reads go on a busy machine.
    rewriter = subprocess.Popen([sys.executable, peer, "rewrite", str(cache_file), "600", "tight"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # The rewrites have begun when the file has grown past its first size (bounded wait on that condition).
        # (The size seen is kept: a later stat may catch a rewrite between its truncation and its write.)
        deadline = time.monotonic() + 60
        grown = False
        while not grown and rewriter.poll() is None and time.monotonic() < deadline:
            grown = cache_file.stat().st_size >= 1_000_000
            if not grown:
                time.sleep(0.05)
        assert grown, "the rewriter never grew the cache"
        seen = []
        for _ in range(30):
            out = run_msal(arguments, tmp_path)
            assert out.returncode == 0, out.stderr
            seen.append([a["username"] for a in json.loads(out.stdout)])
        still_rewriting = rewriter.poll() is None
    finally:
        rewriter.kill()
        rewriter.wait(timeout=30)
    assert still_rewriting, "the rewriter stopped before the reads ended: nothing was tested"
    assert seen == [["py1@contoso.example"]] * 30, [s for s in seen if s != ["py1@contoso.example"]]
