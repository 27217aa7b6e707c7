"""Moving the emulator's clock ahead with MSAL for Python, which checks id token times by the machine's clock."""
import requests

from browser import use_scripted_browser
from test_msal_python import SCOPES, graph_me, make_app

HOURS = 3 * 3600


def advance(emulator, seconds):
    session = requests.Session()
    session.verify, session.trust_env = emulator["ca_certificate"], False
    answer = session.post(emulator["http"] + "/_emulator/clock/advance", params={"seconds": seconds})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_sign_in_again_after_the_clock_moves_hours_ahead(emulator, http_client):
    browser = use_scripted_browser(emulator["ca_certificate"], emulator["username"], emulator["password"])
    app = make_app(emulator, http_client)
    first = app.acquire_token_interactive(SCOPES, timeout=60, prompt="select_account")
    assert "access_token" in first, first
    moved = advance(emulator, HOURS)
    try:
        assert moved["offset"] >= HOURS
        # What the emulator issued before is hours older: Graph refuses the old access token.
        assert graph_me(emulator, first["access_token"]).status_code == 401
        # A new sign-in: its id token carries the machine's time, so MSAL for Python accepts it (no "not yet valid").
        again = app.acquire_token_interactive(SCOPES, timeout=60, prompt="select_account")
        assert not browser.errors, browser.errors
        assert "access_token" in again, again
        assert graph_me(emulator, again["access_token"]).status_code == 200
    finally:
        advance(emulator, -HOURS)
