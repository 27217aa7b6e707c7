"""MSAL for Python with Microsoft's broker runtime (pymsalruntime), as an app uses it, against the broker on the
session bus named by DBUS_SESSION_BUS_ADDRESS. Prints one JSON object with what each call returned.

    broker_client.py AUTHORITY CLIENT_ID            (REQUESTS_CA_BUNDLE trusts the authority's certificate)
"""
import base64
import json
import sys

import msal


def claims(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def summary(result):
    if not result:
        return None
    if "access_token" not in result:
        return {"error": result.get("error"), "error_description": result.get("error_description")}
    return {"token_source": result.get("token_source"), "deviceid": claims(result["access_token"]).get("deviceid"),
            "scope": result.get("scope"), "username": result.get("id_token_claims", {}).get("preferred_username")}


def main():
    authority, client_id = sys.argv[1], sys.argv[2]
    app = msal.PublicClientApplication(client_id, authority=authority, enable_broker_on_linux=True,
                                       instance_discovery=False)
    out = {"broker_enabled": bool(getattr(app, "_enable_broker", False))}
    if not out["broker_enabled"]:
        print(json.dumps(out))
        return
    out["interactive"] = summary(app.acquire_token_interactive(
        ["User.Read"], parent_window_handle=app.CONSOLE_WINDOW_HANDLE))
    accounts = app.get_accounts()
    out["accounts"] = [a.get("username") for a in accounts]
    if accounts:
        out["silent_same_scope"] = summary(app.acquire_token_silent(["User.Read"], account=accounts[0]))
        out["silent_new_scope"] = summary(app.acquire_token_silent_with_error(
            ["https://graph.microsoft.com/.default"], account=accounts[0]))
        app.remove_account(accounts[0])
        out["accounts_after_remove"] = [a.get("username") for a in app.get_accounts()]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
