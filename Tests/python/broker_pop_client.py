"""Microsoft's broker runtime (pymsalruntime) asked directly for proof-of-possession tokens from the broker on the
session bus named by DBUS_SESSION_BUS_ADDRESS: interactively for GET on the first URL, then silently, with the account
the first call returned, for GET on the second. Prints one JSON object with what each call returned.

    broker_pop_client.py AUTHORITY CLIENT_ID FIRST_URL SECOND_URL
"""
import json
import sys
import uuid
from urllib.parse import urlparse

import pymsalruntime

# The redirect URI Microsoft's Linux broker requires of a public client (any valid one; this is the native-client one).
REDIRECT_URI = "https://login.microsoftonline.com/common/oauth2/nativeclient"
SCOPES = ["User.Read"]


def parameters(authority, client_id, url, nonce):
    """Auth parameters for a token bound for GET on `url`: pymsalruntime takes the host (with its port) and the path
    apart, and a nonce of the caller's choosing."""
    target = urlparse(url)
    params = pymsalruntime.MSALRuntimeAuthParameters(client_id, authority)
    params.set_requested_scopes(SCOPES)
    params.set_redirect_uri(REDIRECT_URI)
    params.set_pop_params("GET", target.netloc, target.path, nonce)
    return params


def wait_for(start, interactive=False):
    """Runs one asynchronous pymsalruntime call and waits for the result its callback receives."""
    done = pymsalruntime.CallbackData(is_interactive=interactive)
    start(done.complete)
    done.signal.wait()
    return done.result


def summary(result, nonce):
    error = result.get_error()
    if error:
        return {"error": {"status": str(error.get_status()), "code": error.get_error_code(), "tag": error.get_tag(),
                          "context": error.get_context()}}
    pop = getattr(result, "is_pop_authorization", None)  # not in every pymsalruntime
    return {"nonce": nonce, "is_pop_authorization": bool(pop()) if pop else None,
            "authorization_header": result.get_authorization_header(), "granted_scopes": result.get_granted_scopes()}


def main():
    authority, client_id, first_url, second_url = sys.argv[1:5]
    window = pymsalruntime.get_console_window() or pymsalruntime.get_desktop_window()
    nonces = ["nonce-" + uuid.uuid4().hex for _ in range(2)]
    first = wait_for(lambda done: pymsalruntime.signin_interactively(
        window, parameters(authority, client_id, first_url, nonces[0]), str(uuid.uuid4()), "", done), interactive=True)
    out = {"interactive": summary(first, nonces[0])}
    account = None if first.get_error() else first.get_account()
    if account is not None:
        out["username"] = account.get_user_name()
        second = wait_for(lambda done: pymsalruntime.acquire_token_silently(
            parameters(authority, client_id, second_url, nonces[1]), str(uuid.uuid4()), account, done))
        out["silent"] = summary(second, nonces[1])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
