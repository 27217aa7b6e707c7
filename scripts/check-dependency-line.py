#!/usr/bin/env python3
"""Resolves README's dependency line as an app's manifest writes it.

Usage: scripts/check-dependency-line.py [--build]    (scripts/test.sh runs it without --build)

Takes the first code block under README's "Use it in your package", puts it in the manifest of a new package whose
main.swift is `import MSAL`, with "<this repository's URL>" replaced by the file URL of a clone of this repository's
HEAD made as the published repository is: a directory named msal-swift (the package identity comes from the URL's
last path component) with HEAD as its branch main. Then runs `swift package resolve` and `swift package describe`,
which fail on a version no tag provides and on a `package:` name that is not the identity. Exits 1 on failure.

With --build it then times an app's first debug build, as a new app meets it: `swift build` in the new package with
an empty scratch folder (the package manager's shared cache of repositories is used as it is), and prints the
seconds and the packages checked out. README's figure for an app's first build comes from this.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme_block():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("## Use it in your package", 1)[1]
    match = re.search(r"^```[a-z]*\n(.*?)^```", section, re.S | re.M)
    if not match:
        raise SystemExit("error: README's 'Use it in your package' has no code block")
    return match.group(1)


def run(arguments, cwd):
    result = subprocess.run(arguments, cwd=cwd, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        sys.stderr.write(result.stdout + result.stderr)
        raise SystemExit(f"error: README's dependency line does not resolve: {' '.join(arguments)} failed")
    return result.stdout


def main():
    block = readme_block()
    with tempfile.TemporaryDirectory(prefix="msal-dependency-line-") as work:
        clone = os.path.join(work, "msal-swift")
        run(["git", "clone", "--quiet", "--no-local", ROOT, clone], work)
        head = run(["git", "rev-parse", "HEAD"], ROOT).strip()
        run(["git", "checkout", "--quiet", "-B", "main", head], clone)
        app = os.path.join(work, "app")
        os.makedirs(os.path.join(app, "Sources", "MyApp"))
        manifest = ("// swift-tools-version:6.0\nimport PackageDescription\n\nlet package = Package(\n"
                    '    name: "MyApp",\n'
                    + "".join("    " + line + "\n" for line in block.replace("<this repository's URL>", "file://" + clone).splitlines())
                    + ")\n")
        open(os.path.join(app, "Package.swift"), "w").write(manifest)
        open(os.path.join(app, "Sources", "MyApp", "main.swift"), "w").write("import MSAL\n")
        run(["swift", "package", "resolve"], app)
        run(["swift", "package", "describe", "--type", "json"], app)
        print("README's dependency line resolves (branch main of a clone named msal-swift; product MSAL).")
        if "--build" in sys.argv[1:]:
            scratch = os.path.join(work, "scratch")
            started = time.monotonic()
            run(["swift", "build", "--scratch-path", scratch], app)
            seconds = time.monotonic() - started
            checkouts = sorted(os.listdir(os.path.join(scratch, "checkouts")))
            print(f"An app's first debug build (import MSAL, empty scratch folder): {seconds:.0f} s, "
                  f"{len(checkouts)} packages checked out: {', '.join(checkouts)}")


if __name__ == "__main__":
    main()
