#!/usr/bin/env python3
"""Prints the package's module graph and checks the layering rules the architecture depends on.

    scripts/module-graph.py            # the graph, then the checks; exits 1 when a rule is broken

Rules:
- MSALSupport (the lock type, base64url, form coding) depends on nothing but Foundation.
- MSALCore, the platform-free core, reaches only Foundation, swift-crypto and swift-log: no SwiftNIO,
  async-http-client, Hummingbird or swift-certificates, and no other module of this package but MSALSupport.
- MSALEmulator (and MSALEmulatorCore, its logic without the server) depends on nothing of the client (no MSAL module
  but MSALSupport, and MSALDBus for the emulated broker); MSALEmulatorCore has no server stack (no Hummingbird, no NIO), so the fuzz targets build without it.
- `msal` (MSALCommand) links neither the emulator, the example code nor the test doubles (MSALTesting).
- MSALSecureStorage (the encrypted token cache) builds on MSALCore, MSALFileStorage, its system-call shim
  CMSALKeyctl and MSALDBus (the bounded probe of the Secret Service on the session bus; libdbus loaded at run time)
  only, with swift-crypto and swift-log: no network stack, and no link-time libsecret (it is loaded at run time). CMSALKeyctl depends on nothing.
- MSALHTTPTransport (Linux's default transport) builds on MSALCore, MSALSupport and CMSALCurl only (libcurl loaded at
  run time): no package product beyond the core's, so `MSAL` on Linux reaches no async-http-client and no second
  BoringSSL (swift-nio-ssl); those stay in MSALNIOTransport. CMSALCurl depends on nothing.
- MSALPostgresCache (the PostgreSQL token cache) depends only on MSALCore (and MSALSupport through it),
  postgres-nio, swift-crypto and swift-log; no module but its tests and its benchmark depends on it.
"""
import json
import subprocess
import sys

CORE_ALLOWED_PRODUCTS = {"Crypto", "_CryptoExtras", "Logging"}
# The module the client, the loopback listener and the emulator share (Foundation only).
SHARED_SUPPORT = "MSALSupport"
SECURE_STORAGE_MODULES = {"MSALCore", "MSALFileStorage", "CMSALKeyctl", "MSALDBus", SHARED_SUPPORT}
POSTGRES_CACHE = "MSALPostgresCache"
POSTGRES_CACHE_ALLOWED_MODULES = {"MSALCore", SHARED_SUPPORT}
POSTGRES_CACHE_ALLOWED_PRODUCTS = CORE_ALLOWED_PRODUCTS | {"PostgresNIO"}
POSTGRES_CACHE_USERS = {"MSALPostgresCacheTests", "MSALPostgresBench"}


def describe():
    output = subprocess.run(["swift", "package", "describe", "--type", "json"], check=True,
                            capture_output=True, text=True).stdout
    return {target["name"]: target for target in json.loads(output)["targets"]}


def closure(targets, name):
    """Every module of this package and every external product `name` reaches."""
    modules, products, stack = set(), set(), [name]
    while stack:
        current = stack.pop()
        if current in modules:
            continue
        modules.add(current)
        target = targets[current]
        products.update(target.get("product_dependencies", []))
        stack.extend(target.get("target_dependencies", []))
    modules.discard(name)
    return modules, products


def main():
    targets = describe()
    for name in sorted(targets):
        target = targets[name]
        if target["type"] == "test":
            continue
        direct = sorted(target.get("target_dependencies", [])) + sorted(target.get("product_dependencies", []))
        print(f"{name:22} -> {', '.join(direct) or '(Foundation only)'}")

    failures = []
    modules, products = closure(targets, SHARED_SUPPORT)
    if modules or products:
        failures.append(f"{SHARED_SUPPORT} depends on {sorted(modules | products)}")
    modules, products = closure(targets, "MSALCore")
    modules.discard(SHARED_SUPPORT)
    if modules:
        failures.append(f"MSALCore depends on package modules {sorted(modules)}")
    if not products <= CORE_ALLOWED_PRODUCTS:
        failures.append(f"MSALCore reaches {sorted(products - CORE_ALLOWED_PRODUCTS)}")
    modules, _ = closure(targets, "MSALEmulator")
    modules.discard(SHARED_SUPPORT)
    modules.discard("MSALEmulatorCore")
    # D-Bus through libdbus (Foundation only), shared with the broker's client: the emulated broker serves on it.
    modules.discard("MSALDBus")
    if any(module.startswith("MSAL") for module in modules):
        failures.append(f"MSALEmulator depends on client modules {sorted(modules)}")
    modules, products = closure(targets, "MSALEmulatorCore")
    modules.discard(SHARED_SUPPORT)
    if modules:
        failures.append(f"MSALEmulatorCore depends on package modules {sorted(modules)}")
    if any(product.startswith(("Hummingbird", "NIO")) for product in products):
        failures.append("MSALEmulatorCore reaches a server stack")
    modules, products = closure(targets, "MSALCommand")
    for forbidden in ("MSALEmulator", "MSALEmulatorCore", "MSALSamples", "MSALTesting"):
        if forbidden in modules:
            failures.append(f"msal (MSALCommand) links {forbidden}")
    if any(product.startswith("Hummingbird") for product in products):
        failures.append("msal (MSALCommand) links Hummingbird")

    def reaches_only(name, allowed_modules, allowed_products):
        modules, products = closure(targets, name)
        if not modules <= allowed_modules:
            failures.append(f"{name} depends on package modules {sorted(modules - allowed_modules)}")
        if not products <= allowed_products:
            failures.append(f"{name} reaches {sorted(products - allowed_products)}")

    reaches_only("MSALSecureStorage", SECURE_STORAGE_MODULES, CORE_ALLOWED_PRODUCTS)
    reaches_only("CMSALKeyctl", set(), set())
    reaches_only("MSALHTTPTransport", {"MSALCore", SHARED_SUPPORT, "CMSALCurl"}, CORE_ALLOWED_PRODUCTS)
    reaches_only("CMSALCurl", set(), set())
    _, products = closure(targets, "MSAL")
    if {"AsyncHTTPClient", "NIOSSL"} & products:
        failures.append(f"MSAL reaches {sorted({'AsyncHTTPClient', 'NIOSSL'} & products)}")
    reaches_only(POSTGRES_CACHE, POSTGRES_CACHE_ALLOWED_MODULES, POSTGRES_CACHE_ALLOWED_PRODUCTS)
    for name in targets:
        if name not in POSTGRES_CACHE_USERS and POSTGRES_CACHE in targets[name].get("target_dependencies", []):
            failures.append(f"{name} depends on {POSTGRES_CACHE}")

    print()
    if failures:
        for failure in failures:
            print("layering rule broken: " + failure)
        sys.exit(1)
    print("layering rules hold: MSALCore reaches only " + ", ".join(sorted(CORE_ALLOWED_PRODUCTS))
          + "; MSALEmulator uses no client module; msal links neither the emulator, the examples nor MSALTesting"
          + "; MSALSecureStorage builds on MSALCore, MSALFileStorage and MSALDBus only"
          + "; MSALHTTPTransport builds on MSALCore and CMSALCurl only, and MSAL reaches no async-http-client"
          + "; MSALPostgresCache reaches only MSALCore, PostgresNIO, Crypto and Logging")


if __name__ == "__main__":
    main()
