"""The same measurement as `msal-bench silent`, made with Microsoft's MSAL for Python, for comparison.

Builds a unified cache of ACCOUNTS x TOKENS access tokens with MSAL for Python's own TokenCache.add (what a
sign-in writes), writes it to FILE (which `msal-bench silent --cache FILE` can load), and times
acquire_token_silent cache hits, serialize() and deserialize(). Prints one JSON object.

Usage: msal_python_silent.py ACCOUNTS TOKENS ITERATIONS FILE [--wide-targets]
       msal_python_silent.py --load FILE ITERATIONS
           times hits on a cache another SDK wrote (for example `msal-bench silent --write-cache FILE`),
           asking for the first scope of every cached access token's target.
"""
import base64
import json
import random
import sys
import time

import msal

HOST = "login.microsoftonline.com"
TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47"
CLIENT = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


class OfflineHttp:
    """Answers the OpenID configuration; any token request is counted (a hit must not make one)."""

    def __init__(self):
        self.posts = 0

    def get(self, url, **kwargs):
        base = "https://%s/%s" % (HOST, TENANT)
        body = {"authorization_endpoint": base + "/oauth2/v2.0/authorize", "token_endpoint": base + "/oauth2/v2.0/token",
                "issuer": "https://%s/%s/v2.0" % (HOST, TENANT)}
        return type("R", (), {"status_code": 200, "text": json.dumps(body), "headers": {},
                              "raise_for_status": lambda self: None})()

    def post(self, url, **kwargs):
        self.posts += 1
        raise RuntimeError("a cache hit made a token request")

    def close(self):
        pass


def time_hits(app, by_home, targets, iterations):
    """Times `iterations` silent calls for random (home account id, scopes) targets; each must be a cache hit.
    Returns the sorted durations in nanoseconds."""
    rng = random.Random(42)
    samples = []
    for _ in range(iterations):
        home, scopes = targets[rng.randrange(len(targets))]
        start = time.perf_counter_ns()
        result = app.acquire_token_silent(scopes, account=by_home[home])
        samples.append(time.perf_counter_ns() - start)
        assert result and result.get("token_source") == "cache", result
    samples.sort()
    return samples


def main():
    accounts, tokens, iterations, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    wide = "--wide-targets" in sys.argv
    now = int(time.time())
    cache = msal.SerializableTokenCache()
    targets = []
    for user in range(accounts):
        uid = "00000000-0000-0000-%04x-%012x" % (user % 0xffff, user)
        claims = {"iss": "https://%s/%s/v2.0" % (HOST, TENANT), "aud": CLIENT, "tid": TENANT, "oid": uid,
                  "sub": "sub%d" % user, "preferred_username": "user%d@bench.example" % user, "iat": now, "exp": now + 86400}
        id_token = b64({"alg": "RS256", "typ": "JWT"}) + "." + b64(claims) + ".c2ln"
        for resource in range(tokens):
            scope = "api://bench-resource-%d/read" % resource
            granted = [scope]
            if wide:
                granted += [scope.replace("/read", "/write"), scope.replace("/read", "/admin")]
            cache.add({
                "client_id": CLIENT, "scope": [scope],
                "token_endpoint": "https://%s/%s/oauth2/v2.0/token" % (HOST, TENANT),
                "grant_type": "authorization_code", "params": {}, "data": {},
                "response": {"token_type": "Bearer", "scope": " ".join(granted), "expires_in": 86400,
                             "ext_expires_in": 86400, "access_token": "at-%d-%d-" % (user, resource) + "x" * 64,
                             "refresh_token": "rt-%d" % user, "id_token": id_token,
                             "client_info": b64({"uid": uid, "utid": TENANT})},
            }, now=now)
            targets.append(("%s.%s" % (uid, TENANT), [scope]))

    http = OfflineHttp()
    app = msal.PublicClientApplication(CLIENT, authority="https://%s/%s" % (HOST, TENANT), token_cache=cache,
                                       http_client=http, instance_discovery=False)
    by_home = {a["home_account_id"]: a for a in app.get_accounts()}
    samples = time_hits(app, by_home, targets, iterations)

    start = time.perf_counter_ns()
    text = cache.serialize()
    with open(path, "w") as f:
        f.write(text)
    save_ms = (time.perf_counter_ns() - start) / 1e6
    start = time.perf_counter_ns()
    with open(path) as f:
        msal.SerializableTokenCache().deserialize(f.read())
    load_ms = (time.perf_counter_ns() - start) / 1e6

    print(json.dumps({
        "sdk": "msal-python " + msal.__version__, "accounts": accounts, "tokens_per_account": tokens,
        "wide_targets": wide, "iterations": iterations,
        "p50_us": samples[len(samples) // 2] / 1000, "p99_us": samples[len(samples) * 99 // 100] / 1000,
        "save_ms": save_ms, "load_ms": load_ms, "cache_bytes": len(text), "network_requests_during_hits": http.posts,
    }))


def load_and_time(path, iterations):
    with open(path) as f:
        text = f.read()
    start = time.perf_counter_ns()
    cache = msal.SerializableTokenCache()
    cache.deserialize(text)
    load_ms = (time.perf_counter_ns() - start) / 1e6
    document = json.loads(text)
    ats = list(document["AccessToken"].values())
    client, realm, host = ats[0]["client_id"], ats[0]["realm"], ats[0]["environment"]
    http = OfflineHttp()
    app = msal.PublicClientApplication(client, authority="https://%s/%s" % (host, realm), token_cache=cache,
                                       http_client=http, instance_discovery=False)
    by_home = {a["home_account_id"]: a for a in app.get_accounts()}
    targets = [(at["home_account_id"], [at["target"].split()[0]]) for at in ats
               if at["client_id"] == client and at["home_account_id"] in by_home]
    samples = time_hits(app, by_home, targets, iterations)
    print(json.dumps({
        "sdk": "msal-python " + msal.__version__, "file": path, "access_tokens": len(targets), "iterations": iterations,
        "p50_us": samples[len(samples) // 2] / 1000, "p99_us": samples[len(samples) * 99 // 100] / 1000,
        "load_ms": load_ms, "network_requests_during_hits": http.posts,
    }))


if __name__ == "__main__":
    if sys.argv[1] == "--load":
        load_and_time(sys.argv[2], int(sys.argv[3]))
    else:
        main()
