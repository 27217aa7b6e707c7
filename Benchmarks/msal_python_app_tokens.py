"""The same measurement as `msal-bench client`, made with Microsoft's MSAL for Python, for comparison.

Loads the unified cache FILE that `msal-bench client --write-cache FILE` wrote (TENANTS x RESOURCES app tokens),
makes one ConfidentialClientApplication per tenant on it (MSAL for Python binds an application to one authority),
answers each tenant's OpenID configuration in process, and times ITERATIONS acquire_token_for_client cache hits
for a random tenant and resource. Prints one JSON object.

Usage: msal_python_app_tokens.py FILE TENANTS RESOURCES ITERATIONS
"""
import json
import random
import sys
import time

import msal

HOST = "login.microsoftonline.com"
CLIENT = "6c4f1a7e-3b2d-4e8f-9a1c-5d7e9f0b2c4a"


def tenant(index):
    return "%08x-0000-4000-8000-%012x" % (index, index)


def scope(index):
    return "https://api%d.example.com/.default" % index


class OfflineHttp:
    """Answers the OpenID configuration of the tenant in the URL; a token request fails the run."""

    def get(self, url, **kwargs):
        segment = url.split("/")[3]
        base = "https://%s/%s" % (HOST, segment)
        body = {"authorization_endpoint": base + "/oauth2/v2.0/authorize", "token_endpoint": base + "/oauth2/v2.0/token",
                "issuer": base + "/v2.0"}
        return type("R", (), {"status_code": 200, "text": json.dumps(body), "headers": {},
                              "raise_for_status": lambda self: None})()

    def post(self, url, **kwargs):
        raise RuntimeError("a cache hit made a token request")

    def close(self):
        pass


def main():
    path, tenants, resources, iterations = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    cache = msal.SerializableTokenCache()
    with open(path) as f:
        cache.deserialize(f.read())
    http = OfflineHttp()
    start = time.perf_counter()
    apps = [msal.ConfidentialClientApplication(
        CLIENT, client_credential="bench-secret", authority="https://%s/%s" % (HOST, tenant(t)),
        token_cache=cache, http_client=http, instance_discovery=False) for t in range(tenants)]
    setup = time.perf_counter() - start
    rng = random.Random(7)
    samples = []
    for _ in range(iterations):
        app = apps[rng.randrange(tenants)]
        scopes = [scope(rng.randrange(resources))]
        begin = time.perf_counter_ns()
        result = app.acquire_token_for_client(scopes)
        samples.append(time.perf_counter_ns() - begin)
        assert result.get("token_source") == "cache", result
    samples.sort()

    def pct(p):
        return samples[min(len(samples) - 1, int(len(samples) * p))] / 1000

    print(json.dumps({"library": "msal-python " + msal.__version__, "tenants": tenants, "resources": resources,
                      "iterations": iterations, "p50_us": pct(0.5), "p90_us": pct(0.9), "p99_us": pct(0.99),
                      "app_setup_s": setup}, sort_keys=True))


if __name__ == "__main__":
    main()
