"""A scripted browser that drives the emulator's HTML pages with requests, following their forms."""
import threading
import webbrowser
from html.parser import HTMLParser
from urllib.parse import urljoin

import requests


class _Forms(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"id": a.get("id") or a.get("name"), "action": a.get("action", ""), "fields": [], "buttons": []})
        elif self.forms and tag == "input":
            kind = a.get("type", "text")
            if kind == "checkbox" and "checked" not in a:
                return
            if kind != "submit" and a.get("name"):
                self.forms[-1]["fields"].append((a["name"], a.get("value", ""), kind))
        elif self.forms and tag == "button" and a.get("name"):
            self.forms[-1]["buttons"].append((a["name"], a.get("value", ""), a.get("id")))


def parse_forms(html):
    parser = _Forms()
    parser.feed(html)
    return parser.forms


class Outcome:
    def __init__(self, kind, url=None, fields=None, html=None):
        self.kind, self.url, self.fields, self.html = kind, url, fields or [], html


def drive(session, url, username=None, password=None, user_code=None, choose=None, stop_at_redirect_to=None, forgot=False):
    """Follows pages from `url` until the IdP hands control back to the client.

    Returns an Outcome: `redirect` (Location to the client), `form_post` (fields for the client) or `page`.
    """
    response = session.get(url, allow_redirects=False)
    for _ in range(12):
        if response.status_code in (301, 302, 303):
            location = urljoin(response.url, response.headers["Location"])
            if stop_at_redirect_to is None or location.startswith(stop_at_redirect_to):
                return Outcome("redirect", url=location)
            response = session.get(location, allow_redirects=False)
            continue
        forms = parse_forms(response.text)
        if not forms:
            return Outcome("page", html=response.text)
        form = forms[0]
        target = urljoin(response.url, form["action"])
        fields = [(name, value) for name, value, kind in form["fields"]]
        if form["id"] == "hiddenform":
            return Outcome("form_post", url=target, fields=fields)
        if form["id"] == "signin-form":
            fields = [f for f in fields if f[0] not in ("username", "password")]
            if forgot:
                fields += [("action", "forgot")]
            else:
                fields += [("username", username), ("password", password), ("action", "signin")]
        elif form["id"] == "consent-form":
            fields.append(("action", "accept"))
        elif form["id"] == "picker-form":
            accounts = [value for name, value, _ in form["buttons"] if value not in ("other", "cancel")]
            fields.append(("account", choose or accounts[0]))
        elif form["id"] == "devicecode-form":
            fields = [f for f in fields if f[0] != "otc"] + [("otc", user_code), ("action", "next")]
        else:
            raise AssertionError("unexpected form %r" % form["id"])
        response = session.post(target, data=fields, allow_redirects=False)
    raise AssertionError("too many pages")


class ScriptedBrowser(webbrowser.BaseBrowser):
    """Registered as the preferred browser: MSAL's `webbrowser.open(auth_uri)` lands here."""

    def __init__(self, ca, username, password):
        super().__init__("emulator-scripted")
        self.ca, self.username, self.password = ca, username, password
        self.errors = []

    def open(self, url, new=0, autoraise=True):
        threading.Thread(target=self._run, args=(url,), daemon=True).start()
        return True

    def _run(self, url):
        try:
            session = requests.Session()
            session.verify = self.ca
            session.trust_env = False
            outcome = drive(session, url, self.username, self.password)
            if outcome.kind == "form_post":
                # The client's loopback receiver is plain HTTP.
                requests.post(outcome.url, data=outcome.fields, timeout=10)
            elif outcome.kind == "redirect":
                requests.get(outcome.url, timeout=10)
        except Exception as error:  # reported by the test
            self.errors.append(error)


def use_scripted_browser(ca, username, password):
    browser = ScriptedBrowser(ca, username, password)
    webbrowser.register("emulator-scripted", None, browser, preferred=True)
    return browser
