"""Microsoft's MSAL for Python as an independent peer of MSAL for Swift's token cache.

Usage:
  msal_python_peer.py read CACHE_FILE CLIENT_ID TENANT SCOPE
      Loads a cache another SDK wrote, lists its accounts and gets a token silently. Any token request is an
      error: the answer must come from the cache. Prints one JSON object.
  msal_python_peer.py write CACHE_FILE CLIENT_ID TENANT SCOPE NOW
      Writes a cache the way MSAL for Python does after an authorization-code sign-in. Prints one JSON object
      with the secrets it stored.
  msal_python_peer.py add CACHE_FILE CLIENT_ID TENANT SCOPE NOW UID
      Loads a cache another SDK wrote, adds a token response for user UID (home tenant TENANT) as MSAL for Python
      does, and writes the whole cache back.

Runs offline: a stub HTTP client answers the OpenID configuration and refuses everything else.
"""
import base64
import json
import sys

import msal

HOST = "login.microsoftonline.com"


def b64url(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


class _Response:
    def __init__(self, status, body):
        self.status_code = status
        self.text = json.dumps(body)
        self.headers = {}

    def raise_for_status(self):
        if self.status_code >= 400:
            raise RuntimeError("HTTP %d" % self.status_code)


class StubHttp:
    """Serves discovery; records and refuses token requests."""

    def __init__(self, tenant):
        self.tenant = tenant
        self.token_requests = 0

    def get(self, url, **kwargs):
        if url.endswith("/.well-known/openid-configuration"):
            base = "https://%s/%s" % (HOST, self.tenant)
            return _Response(200, {
                "authorization_endpoint": base + "/oauth2/v2.0/authorize",
                "token_endpoint": base + "/oauth2/v2.0/token",
                "device_authorization_endpoint": base + "/oauth2/v2.0/devicecode",
                "issuer": "https://%s/%s/v2.0" % (HOST, self.tenant),
            })
        return _Response(404, {"error": "not_found"})

    def post(self, url, **kwargs):
        self.token_requests += 1
        return _Response(400, {"error": "invalid_grant", "error_description": "the peer must not need the network"})

    def close(self):
        pass


def read(cache_file, client_id, tenant, scope):
    cache = msal.SerializableTokenCache()
    with open(cache_file) as f:
        cache.deserialize(f.read())
    http = StubHttp(tenant)
    app = msal.PublicClientApplication(
        client_id, authority="https://%s/%s" % (HOST, tenant), token_cache=cache,
        http_client=http, instance_discovery=False)
    accounts = app.get_accounts()
    result = app.acquire_token_silent([scope], account=accounts[0]) if accounts else None
    print(json.dumps({
        "accounts": [{"username": a.get("username"), "home_account_id": a.get("home_account_id")} for a in accounts],
        "access_token": (result or {}).get("access_token"),
        "token_source": (result or {}).get("token_source"),
        "error": (result or {}).get("error"),
        "token_requests": http.token_requests,
    }))


def write(cache_file, client_id, tenant, scope, now, uid="5d8a2a49-8e55-4a9f-9f3b-1c1a2c3d4e5f", existing=False):
    now = int(now)
    id_token_claims = {
        "iss": "https://%s/%s/v2.0" % (HOST, tenant), "aud": client_id, "tid": tenant, "oid": uid,
        "sub": "peer-sub", "preferred_username": "bob@contoso.example", "name": "Bob",
        "iat": now, "exp": now + 3600,
    }
    id_token = b64url({"alg": "RS256", "typ": "JWT"}) + "." + b64url(id_token_claims) + ".c2ln"
    cache = msal.SerializableTokenCache()
    if existing:
        with open(cache_file) as f:
            cache.deserialize(f.read())
    cache.add({
        "client_id": client_id,
        "scope": [scope],
        "token_endpoint": "https://%s/%s/oauth2/v2.0/token" % (HOST, tenant),
        "grant_type": "authorization_code",
        "params": {}, "data": {},
        "response": {
            "token_type": "Bearer", "scope": scope + " openid profile", "expires_in": 3599,
            "ext_expires_in": 7199, "access_token": "PY-ACCESS-TOKEN", "refresh_token": "PY-REFRESH-TOKEN",
            "id_token": id_token, "client_info": b64url({"uid": uid, "utid": tenant}),
        },
    }, now=now)
    with open(cache_file, "w") as f:
        f.write(cache.serialize())
    print(json.dumps({"access_token": "PY-ACCESS-TOKEN", "home_account_id": "%s.%s" % (uid, tenant),
                      "username": "bob@contoso.example"}))


def add(cache_file, client_id, tenant, scope, now, uid):
    write(cache_file, client_id, tenant, scope, now, uid=uid, existing=True)


def read_app(cache_file, client_id, tenant, scope):
    """acquire_token_for_client on the cache file: must be a cache hit."""
    cache = msal.SerializableTokenCache()
    with open(cache_file) as f:
        cache.deserialize(f.read())
    http = StubHttp(tenant)
    app = msal.ConfidentialClientApplication(
        client_id, client_credential="peer-secret", authority="https://%s/%s" % (HOST, tenant), token_cache=cache,
        http_client=http, instance_discovery=False)
    result = app.acquire_token_for_client([scope])
    print(json.dumps({"access_token": result.get("access_token"), "token_source": result.get("token_source"),
                      "error": result.get("error"), "token_requests": http.token_requests}))


def write_app(cache_file, client_id, tenant, scope, now):
    """Writes an app token as MSAL for Python's client credentials flow stores it."""
    cache = msal.SerializableTokenCache()
    cache.add({
        "client_id": client_id,
        "scope": [scope],
        "token_endpoint": "https://%s/%s/oauth2/v2.0/token" % (HOST, tenant),
        "grant_type": "client_credentials",
        "params": {}, "data": {},
        "response": {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599,
                     "access_token": "PY-APP-TOKEN"},
    }, now=int(now))
    with open(cache_file, "w") as f:
        f.write(cache.serialize())
    print(json.dumps({"access_token": "PY-APP-TOKEN"}))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"read": read, "write": write, "add": add, "read-app": read_app, "write-app": write_app}[command](*args)
