"""MSAL for Python with msal-extensions as a peer that shares one token cache file with MSAL for Swift.

Usage:
  cache_sharing_peer.py write CACHE_FILE FIRST COUNT LOCK
      Saves COUNT sign-ins (users py<FIRST>.. py<FIRST+COUNT-1>) through msal-extensions' PersistedTokenCache,
      the way MSAL for Python apps and the Azure CLI keep their cache. LOCK picks msal-extensions' lock:
      "portalocker" (its default when portalocker is installed) or "filelock" (its fallback: exclusive creation
      only). Prints one JSON object: the saves, the longest lock wait in seconds, and how many times the lock
      could not be obtained (the portalocker variant then goes on without it).
  cache_sharing_peer.py rewrite CACHE_FILE SECONDS [nolock | tight]
      Makes CACHE_FILE a big cache (about 5 MB, one account kept from the existing file plus many access
      tokens) and rewrites it in place (truncate and write, as FilePersistence does) under the lock, again and
      again for SECONDS, 5 ms apart; with "nolock", without taking the lock for the rewrites (a misbehaving
      writer); with "tight", under the lock with no pause between rewrites (an app saving in a loop).
      Prints one JSON object with the number of rewrites and the size.
"""
import base64
import json
import sys
import time

import msal
from msal_extensions import token_cache as extensions_cache
from msal_extensions import filelock
from msal_extensions.persistence import FilePersistence

TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"
CLIENT_ID = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
HOST = "login.microsoftonline.com"


def b64url(data):
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


class Measure:
    waits = []
    failures = 0


def measured(lock_class):
    class MeasuredLock(lock_class):
        def __enter__(self):
            start = time.monotonic()
            result = super().__enter__()
            Measure.waits.append(time.monotonic() - start)
            return result

        def _try_to_create_lock_file(self):  # portalocker variant only: False means "going on without it"
            created = super()._try_to_create_lock_file()
            if not created:
                Measure.failures += 1
            return created
    return MeasuredLock


def use_lock(name):
    if name == "filelock":
        extensions_cache.CrossPlatLock = measured(filelock.CrossPlatLock)
    elif name == "portalocker":
        from msal_extensions import cache_lock  # needs portalocker
        extensions_cache.CrossPlatLock = measured(cache_lock.CrossPlatLock)
    else:
        raise SystemExit("LOCK is portalocker or filelock")


def sign_in_event(user, now):
    uid = "00000000-0000-0000-0000-%012x" % user
    claims = {
        "iss": "https://%s/%s/v2.0" % (HOST, TENANT), "aud": CLIENT_ID, "tid": TENANT, "oid": uid,
        "sub": "py-sub-%d" % user, "preferred_username": "py%d@contoso.example" % user, "name": "Py %d" % user,
        "iat": now, "exp": now + 3600,
    }
    id_token = b64url({"alg": "RS256", "typ": "JWT"}) + "." + b64url(claims) + ".c2ln"
    return {
        "client_id": CLIENT_ID, "scope": ["User.Read"],
        "token_endpoint": "https://%s/%s/oauth2/v2.0/token" % (HOST, TENANT),
        "grant_type": "authorization_code", "params": {}, "data": {},
        "response": {
            "token_type": "Bearer", "scope": "User.Read openid profile", "expires_in": 3599,
            "ext_expires_in": 7199, "access_token": "PY-AT-%d" % user, "refresh_token": "PY-RT-%d" % user,
            "id_token": id_token, "client_info": b64url({"uid": uid, "utid": TENANT}),
        },
    }


def write(cache_file, first, count, lock):
    use_lock(lock)
    cache = extensions_cache.PersistedTokenCache(FilePersistence(cache_file))
    now = int(time.time())
    first, count = int(first), int(count)
    for user in range(first, first + count):
        cache.add(sign_in_event(user, now), now=now)
    print(json.dumps({"saved": count, "locks": len(Measure.waits), "longest_wait": max(Measure.waits or [0]),
                      "lock_failures": Measure.failures}))


def rewrite(cache_file, seconds, mode="lock"):
    use_lock("portalocker")
    lock_path = cache_file + ".lockfile"
    persistence = FilePersistence(cache_file)
    with extensions_cache.CrossPlatLock(lock_path):
        document = json.loads(persistence.load())
        template = next(iter(document["AccessToken"].values()))
        for n in range(2500):
            entry = dict(template, target="api://padding-%d/read" % n, secret="AT-%d-" % n + "x" * 1200)
            key = "-".join([entry["home_account_id"], entry["environment"], "accesstoken", entry["client_id"],
                            entry["realm"], entry["target"]]).lower()
            document["AccessToken"][key] = entry
        content = json.dumps(document, indent=4)
        persistence.save(content)
    # At least `seconds` and at least 25 rewrites: a busy machine slows the rewrites, never shortens the overlap.
    deadline = time.monotonic() + float(seconds)
    rewrites = 0
    while time.monotonic() < deadline or rewrites < 25:
        if mode == "nolock":
            persistence.save(content)
        else:
            with extensions_cache.CrossPlatLock(lock_path):
                persistence.save(content)
        rewrites += 1
        if mode != "tight":
            time.sleep(0.005)
    print(json.dumps({"rewrites": rewrites, "size": len(content), "longest_wait": max(Measure.waits or [0]),
                      "lock_failures": Measure.failures}))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"write": write, "rewrite": rewrite}[command](*args)
