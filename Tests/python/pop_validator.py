"""An independent check of a proof-of-possession signed HTTP request (SHR), written from the rules of Microsoft's
validator (Microsoft.IdentityModel.Protocols.SignedHttpRequest, SignedHttpRequestHandler and
SignedHttpRequestValidationParameters): the inner access token verified with the issuer's published keys, the SHR's
key resolved from `cnf.jwk` and required to have the RFC 7638 thumbprint the token's `cnf.kid` names, the SHR's
signature (RS256 or PS256) verified with that key, `ts` at most 5 minutes old, `m`, `u` and `p` compared with the
request. It shares no code with the library or the emulator."""
import base64
import hashlib
import json
import time
from urllib.parse import urlparse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

LIFETIME = 300


class Invalid(Exception):
    pass


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def parts(jws):
    pieces = jws.split(".")
    if len(pieces) != 3:
        raise Invalid("not a compact JWS")
    return json.loads(b64url_decode(pieces[0])), json.loads(b64url_decode(pieces[1])), b64url_decode(pieces[2]), \
        (pieces[0] + "." + pieces[1]).encode()


def rsa_key(jwk):
    if jwk.get("kty") != "RSA":
        raise Invalid("the key is not RSA")
    n = int.from_bytes(b64url_decode(jwk["n"]), "big")
    e = int.from_bytes(b64url_decode(jwk["e"]), "big")
    return rsa.RSAPublicNumbers(e, n).public_key()


def verify(key, alg, signature, signed):
    if alg == "RS256":
        key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
    elif alg == "PS256":
        key.verify(signature, signed, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
    else:
        raise Invalid("unsupported alg " + str(alg))


def thumbprint(jwk):
    """RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace."""
    canonical = json.dumps({"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


def validate(shr, method, url, issuer_keys, now=None):
    """The access token's claims when `shr` is valid for `method` and `url`; raises Invalid otherwise."""
    now = time.time() if now is None else now
    header, claims, signature, signed = parts(shr)
    token = claims.get("at")
    if not token:
        raise Invalid("no at")
    at_header, at_claims, at_signature, at_signed = parts(token)
    issuer_key = next((k for k in issuer_keys if k.get("kid") == at_header.get("kid")), None)
    if issuer_key is None:
        raise Invalid("the access token's key is not the issuer's")
    try:
        verify(rsa_key(issuer_key), at_header.get("alg"), at_signature, at_signed)
    except Exception as error:
        raise Invalid("the access token's signature: %s" % error)
    if at_claims.get("exp", 0) < now:
        raise Invalid("the access token expired")
    kid = (at_claims.get("cnf") or {}).get("kid")
    if not kid:
        raise Invalid("the access token is not bound (no cnf.kid)")
    jwk = (claims.get("cnf") or {}).get("jwk")
    if not jwk or thumbprint(jwk) != kid:
        raise Invalid("the SHR's cnf.jwk is not the key the token is bound to")
    try:
        verify(rsa_key(jwk), header.get("alg"), signature, signed)
    except Invalid:
        raise
    except Exception as error:
        raise Invalid("the SHR's signature: %s" % error)
    ts = claims.get("ts")
    if not isinstance(ts, (int, float)) or now > ts + LIFETIME or ts > now + LIFETIME:
        raise Invalid("ts missing or outside 5 minutes")
    target = urlparse(url)
    if "m" in claims and claims["m"].strip().upper() != method.upper():
        raise Invalid("m is not the method")
    if claims.get("u", "").lower() not in (target.hostname.lower(), target.netloc.lower()):
        raise Invalid("u is not the host")
    if "p" in claims and claims["p"].strip("/") != target.path.strip("/"):
        raise Invalid("p is not the path")
    return at_claims


def make_shr(token, key, method, url, nonce, alg="PS256"):
    """A signed request as another client (MSAL.NET: PS256, typ pop) makes it, for the emulator to validate."""
    public = key.public_key().public_numbers()
    size = (public.n.bit_length() + 7) // 8
    jwk = {"e": b64url(public.e.to_bytes(3, "big")), "kty": "RSA", "n": b64url(public.n.to_bytes(size, "big"))}
    target = urlparse(url)
    header = {"alg": alg, "typ": "pop", "kid": thumbprint(jwk)}
    claims = {"at": token, "ts": int(time.time()), "m": method, "u": target.netloc, "p": target.path,
              "nonce": nonce, "cnf": {"jwk": jwk}}
    signed = (b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())).encode()
    pad = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32) if alg == "PS256" else padding.PKCS1v15()
    return signed.decode() + "." + b64url(key.sign(signed, pad, hashes.SHA256()))


if __name__ == "__main__":
    # For callers in other languages: reads {"shr", "method", "url", "keys"} as JSON on stdin, prints the validated
    # token's claims as JSON, or the reason on stderr with exit status 1.
    import sys
    request = json.load(sys.stdin)
    try:
        claims = validate(request["shr"], request["method"], request["url"], request["keys"])
    except (Invalid, ValueError, KeyError) as error:  # malformed parts are refusals too
        print(str(error), file=sys.stderr)
        sys.exit(1)
    print(json.dumps(claims))
