#!/usr/bin/env python3
"""Contention on one shared token cache file: MSAL for Swift sign-ins against MSAL for Python writers.

Scenario (everything local, bounded, in a fresh temporary directory):
  * `msal-emulator serve --json` with a generated configuration: the default user (adele@...) is auto-approved,
    and CONCURRENCY public-client apps are registered, so that each concurrent sign-in slot writes its own
    refresh token entry (the emulator auto-approves one user only; distinct apps make lost writes visible).
  * The cache file is seeded (under msal-extensions' lock) with fake MSAL for Python accounts and padding access
    tokens, to about --target-mb megabytes.
  * CONCURRENCY `msal login --device-code --json --cache FILE` processes at once, for --rounds rounds, each with
    its own HOME / XDG_* directories, while 2 Python processes keep adding fake sign-ins to the same file through
    msal-extensions' PersistedTokenCache + FilePersistence (portalocker's CrossPlatLock, its default), counting
    saves, LockErrors and how often `_try_to_create_lock_file` returned False.
  * Afterwards: every (account, app) signed in by msal must have its account and refresh token in the file; each
    refresh token is redeemed with `msal token --json --force-refresh` (exit 3 = the stored refresh token was
    already rotated by the emulator: stale); every account the Python side saved must still be present.

Modes: default (both), --no-python (sign-ins only, same seeded file), --python-only (writers only, --duration s).
save_ms_* are the `duration_in_cache_ms` of each `msal login --json` (its cache reads and the save of the sign-in,
with every wait for the lock); refresh_cache_ms_* the same of the post-run `msal token` calls.

Usage:  .venv/bin/python Benchmarks/cache_contention.py [--rounds 6] [--no-python | --python-only --duration S]
Prints one JSON object on stdout.
"""
import argparse, atexit, base64, json, os, re, select, shutil, signal, subprocess, sys, tempfile, threading, time, uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = "adele@contoso.onmicrosoft.com"           # the emulator default configuration's first user
DEMO_CLIENT = "0b6f1c3a-52d4-4e07-9a3b-7c1e2d4f6a80"  # kept so that the configuration's defaults stay valid
GRAPH_READ = "https://graph.microsoft.com/User.Read"
PY_CLIENT = "7e1a9c52-0d4b-4f3e-8a61-3c2b5d4e6f70"   # fake client id of the Python writers (never contacted)
TIMEOUT = 120
CHILDREN = set()


def cleanup(*_):
    for p in list(CHILDREN):
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(5)
            except Exception:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except Exception:
                    pass
    CHILDREN.clear()


def spawn(cmd, env=None, **kw):
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, start_new_session=True, **kw)
    CHILDREN.add(p)
    return p


def run(cmd, env, timeout=TIMEOUT):
    """Runs cmd; returns (exit code or None on timeout, stdout, stderr, seconds)."""
    start = time.monotonic()
    p = spawn(cmd, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = None
    CHILDREN.discard(p)
    return rc, out, err, time.monotonic() - start


def b64url(data):
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def py_uid(tag):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "cache-contention/" + tag))


def sign_in_event(tag, token_endpoint, tenant, at_size=2000, scope="User.Read"):
    """A fake MSAL for Python sign-in (authorization code grant answer) for TokenCache.add."""
    now, uid = int(time.time()), py_uid(tag)
    claims = {"iss": token_endpoint.rsplit("/oauth2", 1)[0] + "/v2.0", "aud": PY_CLIENT, "tid": tenant, "oid": uid,
              "sub": "sub-" + tag, "preferred_username": tag + "@py.example", "name": "Py " + tag, "iat": now, "exp": now + 3600}
    return {"client_id": PY_CLIENT, "scope": [scope], "token_endpoint": token_endpoint, "grant_type": "authorization_code",
            "params": {}, "data": {}, "response": {
                "token_type": "Bearer", "scope": scope + " openid profile", "expires_in": 3599, "ext_expires_in": 7199,
                "access_token": "PY-AT-%s-%s" % (tag, "x" * at_size), "refresh_token": "PY-RT-%s-%d" % (tag, time.time_ns()),
                "id_token": b64url({"alg": "RS256", "typ": "JWT"}) + "." + b64url(claims) + ".c2ln",
                "client_info": b64url({"uid": uid, "utid": tenant})}}


def padding(tags, token_endpoint, tenant, target_bytes, prefix):
    """(key, access token entry) pairs of about target_bytes, cloned from the accounts of tags (many tokens per save)."""
    import msal
    cache = msal.SerializableTokenCache()
    for tag in tags:
        cache.add(sign_in_event(tag, token_endpoint, tenant))
    templates, entries, size = list(json.loads(cache.serialize())["AccessToken"].values()), {}, 0
    while size < target_bytes:
        n = len(entries)
        entry = dict(templates[n % len(templates)], target="api://%s-%d/read" % (prefix, n), secret="PAD-%d-" % n + "x" * 2000)
        key = "-".join([entry["home_account_id"], entry["environment"], "accesstoken", entry["client_id"],
                        entry["realm"], entry["target"]]).lower()
        entries[key] = entry
        size += len(json.dumps({key: entry}, indent=4)) + 4
    return cache, entries


def seed(cache_file, token_endpoint, tenant, target_bytes, accounts=20):
    """Writes fake Python accounts (plus padding access tokens, about target_bytes) under msal-extensions' lock."""
    from msal_extensions.cache_lock import CrossPlatLock
    from msal_extensions.persistence import FilePersistence
    tags = ["seed%d" % k for k in range(accounts)]
    cache, entries = padding(tags, token_endpoint, tenant, target_bytes, "seed-pad")
    doc = json.loads(cache.serialize())
    doc["AccessToken"].update(entries)
    with CrossPlatLock(cache_file + ".lockfile"):
        FilePersistence(cache_file).save(json.dumps(doc, indent=4))
    return [py_uid(t) + "." + tenant for t in tags]


def writer(index, cache_file, token_endpoint, tenant, stop_file, ready_file, pad_bytes, users=25):
    """A Python writer process: adds fake sign-ins to the shared cache until stop_file exists; prints JSON stats.

    It owns pad_bytes of access tokens for its users and puts back any that a reload shows missing (another
    process's save lost them): `padding_restores` counts those lost updates; the file keeps its size anyway."""
    from msal_extensions import token_cache as tc, cache_lock
    from msal_extensions.persistence import FilePersistence
    import portalocker
    stats = {"saves": 0, "lock_errors": 0, "create_failures": 0, "other_errors": 0, "padding_restores": -1,
             "errors": [], "added": []}
    tags = ["w%d-u%d" % (index, u) for u in range(users)]
    pad = padding(tags, token_endpoint, tenant, int(pad_bytes), "w%d-pad" % index)[1]

    class CountingLock(cache_lock.CrossPlatLock):
        def _try_to_create_lock_file(self):
            created = super()._try_to_create_lock_file()
            stats["create_failures"] += 0 if created else 1
            return created

    class CountingPersistence(FilePersistence):
        def save(self, content):
            super().save(content)
            stats["saves"] += 1

    tc.CrossPlatLock = CountingLock  # PersistedTokenCache.modify looks the name up in its module
    class PaddedCache(tc.PersistedTokenCache):
        def _reload_if_necessary(self):  # runs under the lock in modify(), before the save
            super()._reload_if_necessary()
            tokens = self._cache.setdefault("AccessToken", {})
            if any(k not in tokens for k in pad):
                stats["padding_restores"] += 1  # the first one is this writer's initial padding
                tokens.update(pad)

    cache = PaddedCache(CountingPersistence(cache_file))
    added, n = set(), 0
    while not os.path.exists(stop_file):
        tag = tags[n % users]
        try:
            cache.add(sign_in_event(tag, token_endpoint, tenant))
            added.add(py_uid(tag) + "." + tenant)
        except (cache_lock.LockError, portalocker.exceptions.BaseLockException) as e:
            stats["lock_errors"] += 1
            stats["errors"].append("%s: %s" % (type(e).__name__, e))
        except Exception as e:  # noqa: BLE001 - counted and reported
            stats["other_errors"] += 1
            stats["errors"].append("%s: %s" % (type(e).__name__, e))
        n += 1
        if n == 1:
            open(ready_file, "w").close()
    stats["added"] = sorted(added)
    stats["errors"] = sorted(set(stats["errors"]))[:5]
    print(json.dumps(stats))


def child_env(tmp, name):
    """An environment whose home and XDG directories are inside tmp, without MSAL_* settings or a browser."""
    home = os.path.join(tmp, "homes", name)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MSAL_") and k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    env["HOME"] = home
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"), ("XDG_CACHE_HOME", ".cache"),
                     ("XDG_STATE_HOME", ".local/state"), ("XDG_RUNTIME_DIR", "run")):
        env[var] = os.path.join(home, sub)
        os.makedirs(env[var], mode=0o700, exist_ok=True)
    return env


def start_emulator(emulator, tmp, apps):
    config = {"autoApproveUsername": USER, "applications": [
        {"clientId": c, "displayName": "Contention app %d" % i, "redirectURIs": ["http://localhost"],
         "preConsentedScopes": [GRAPH_READ]} for i, c in enumerate([DEMO_CLIENT] + apps)]}
    path = os.path.join(tmp, "emulator.json")
    with open(path, "w") as f:
        json.dump(config, f)
    log = open(os.path.join(tmp, "emulator.stderr"), "w")
    p = spawn([emulator, "serve", "--json", "--config", path, "--ca-dir", os.path.join(tmp, "ca")],
              child_env(tmp, "emulator"), stdout=subprocess.PIPE, stderr=log)
    ready, _, _ = select.select([p.stdout], [], [], 60)
    line = p.stdout.readline() if ready else b""
    if not line:
        raise SystemExit("msal-emulator did not start; see " + log.name)
    return json.loads(line)


def percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def first_error_line(err):
    lines = [l for l in err.splitlines() if l.strip() and "user_code" not in l]
    return re.sub(r"\s*\[correlation id [^]]*\]", "", lines[0])[:300] if lines else "(no stderr)"  # distinct texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--writers", type=int, default=2)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--no-python", action="store_true")
    mode.add_argument("--python-only", action="store_true")
    ap.add_argument("--duration", type=float, default=60, help="seconds of writing in --python-only mode")
    ap.add_argument("--target-mb", type=float, default=2.6, help="approximate final cache size")
    ap.add_argument("--scheme", choices=["https", "http"], default="https")
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    mode_name = "python-only" if args.python_only else "no-python" if args.no_python else "default"
    msal_bin, emulator_bin = os.path.join(args.bin, "msal"), os.path.join(args.bin, "msal-emulator")

    tmp = tempfile.mkdtemp(prefix="cache-contention-")
    atexit.register(lambda: None if args.keep else shutil.rmtree(tmp, ignore_errors=True))
    atexit.register(cleanup)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    apps = ["c0a1e5ce-0000-4000-8000-%012x" % i for i in range(args.concurrency)]
    summary = start_emulator(emulator_bin, tmp, apps)
    tenant = summary["tenant_id"]
    authority = summary[args.scheme].rstrip("/") + "/" + tenant
    ca = ["--ca-file", summary["ca_certificate"]] if args.scheme == "https" else []
    cache_file = os.path.join(tmp, "cache", "msal_token_cache.json")
    os.makedirs(os.path.dirname(cache_file), mode=0o700)
    py_endpoint = summary["https"].rstrip("/") + "/" + tenant + "/oauth2/v2.0/token"  # only a name for the fake entries
    use_writers = not args.no_python
    # The bulk (about --target-mb) is the writers' own padding, or the seed's when there are no writers.
    target = int(args.target_mb * 1e6) - 20 * 4600 - (args.writers * 25 * 4600 if use_writers else 0)
    python_expected = set(seed(cache_file, py_endpoint, tenant, 0 if use_writers else target))

    writers, stop_file = [], os.path.join(tmp, "stop")
    if use_writers:
        for w in range(args.writers):
            ready = os.path.join(tmp, "ready-%d" % w)
            writers.append((spawn([sys.executable, os.path.abspath(__file__), "_writer", str(w), cache_file, py_endpoint,
                                   tenant, stop_file, ready, str(target // args.writers)], child_env(tmp, "writer%d" % w),
                                  stdout=subprocess.PIPE, stderr=open(ready + ".stderr", "w"), text=True), ready))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not all(os.path.exists(r) or p.poll() is not None for p, r in writers):
            time.sleep(0.1)

    started = time.monotonic()
    logins = []  # (slot, rc, stdout, stderr, seconds)
    if args.python_only:
        time.sleep(args.duration)
    else:
        for r in range(args.rounds):
            results, threads = [None] * args.concurrency, []
            for i in range(args.concurrency):
                cmd = [msal_bin, "login", "--device-code", "--json", "--authority", authority, "--client-id", apps[i],
                       "--cache", cache_file, "--scopes", "User.Read"] + ca
                env = child_env(tmp, "login-%d-%d" % (r, i))

                def go(i=i, cmd=cmd, env=env):
                    results[i] = (i,) + run(cmd, env)
                threads.append(threading.Thread(target=go))
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            logins.extend(results)
    duration = time.monotonic() - started

    open(stop_file, "w").close()
    py = {"saves": 0, "lock_errors": 0, "create_failures": 0, "other_errors": 0, "padding_restores": 0, "errors": []}
    for p, _ in writers:
        try:
            out, err = p.communicate(timeout=TIMEOUT)
            stats = json.loads(out.strip().splitlines()[-1])
        except Exception as e:  # noqa: BLE001 - a writer that died or hung is reported, not fatal
            py["errors"].append("writer failed: %s: %s" % (type(e).__name__, e))
            continue
        for k in ("saves", "lock_errors", "create_failures", "other_errors", "padding_restores"):
            py[k] += stats[k]
        py["errors"] += stats["errors"]
        python_expected |= set(stats["added"])

    failed = [l for l in logins if l[1] != 0]
    messages = sorted({("timeout" if rc is None else "exit %d: %s" % (rc, first_error_line(err)))
                       for _, rc, _, err, _ in failed})
    signed_in = set()  # (home_account_id, client id)
    save_ms = []
    for slot, rc, out, _, _ in logins:
        if rc == 0:
            try:
                printed = json.loads(out.strip().splitlines()[-1])
                account = printed["account"]
                signed_in.add((account["home_account_id"], apps[slot]))
                save_ms.append(printed.get("metadata", {}).get("duration_in_cache_ms"))
            except Exception:  # noqa: BLE001
                messages.append("exit 0 but no account JSON: %r" % out[:200])

    try:
        with open(cache_file) as f:
            doc = json.load(f)
    except Exception as e:  # noqa: BLE001
        doc, messages = {}, messages + ["cache file unreadable: %s" % e]
    accounts = {a.get("home_account_id") for a in doc.get("Account", {}).values()}
    rts = {(t.get("home_account_id"), t.get("client_id")) for t in doc.get("RefreshToken", {}).values()}
    missing = [pair for pair in signed_in if pair[0] not in accounts or pair not in rts]
    stale, refresh_errors, refresh_cache_ms = 0, [], []
    for haid, client in sorted(set(signed_in) - set(missing)):
        rc, out, err, _ = run([msal_bin, "token", "--json", "--force-refresh", "--authority", authority, "--client-id",
                               client, "--cache", cache_file, "--account", haid, "--scopes", "User.Read"] + ca,
                              child_env(tmp, "check-" + client))
        if rc == 3:
            stale += 1
        elif rc != 0:
            refresh_errors.append("timeout" if rc is None else "exit %d: %s" % (rc, first_error_line(err)))
        else:
            refresh_cache_ms.append(json.loads(out.strip().splitlines()[-1])["metadata"]["duration_in_cache_ms"])

    login_s = [l[4] for l in logins]
    result = {
        "mode": mode_name, "signins_attempted": len(logins), "signins_failed": len(failed),
        "failure_messages": messages[:5], "stale_refresh_tokens": stale, "swift_accounts_missing": len(missing),
        "python_accounts_missing": len(python_expected - accounts), "python_saves": py["saves"],
        "python_lock_errors": py["lock_errors"], "python_create_failures": py["create_failures"],
        "save_ms_p50": percentile([m for m in save_ms if m is not None], 0.5),
        "save_ms_max": max([m for m in save_ms if m is not None], default=None),
        "login_s_p50": round(percentile(login_s, 0.5), 3) if login_s else None,
        "login_s_max": round(max(login_s), 3) if login_s else None,
        "cache_bytes": os.path.getsize(cache_file) if os.path.exists(cache_file) else 0,
        # Extras: context for the numbers above.
        "duration_s": round(duration, 1), "swift_pairs_signed_in": len(signed_in), "python_accounts_expected": len(python_expected),
        "python_other_errors": py["other_errors"], "python_padding_restores": py["padding_restores"], "python_error_messages": sorted(set(py["errors"]))[:5],
        "refresh_errors": sorted(set(refresh_errors))[:5],
        "refresh_cache_ms_p50": percentile(refresh_cache_ms, 0.5), "refresh_cache_ms_max": max(refresh_cache_ms, default=None),
        "tmp_dir": tmp if args.keep else None,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_writer":
        writer(int(sys.argv[2]), *sys.argv[3:9])
    else:
        main()
