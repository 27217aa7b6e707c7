#!/usr/bin/env python3
"""Type-checks every Swift snippet of README.md, docs/ and the DocC articles against the built modules.

Usage: scripts/check-snippets.py [--list]     (after `swift build --traits Tools`; scripts/test.sh runs it)
       scripts/check-snippets.py --apple .build/apple-surface/ios    (scripts/apple-surface.sh runs it)

Each ```swift block is compiled as it is written, as the `main.swift` of a program of its own: the imports it has,
Swift 6 language mode, against the modules in .build/debug. A snippet that is part of a larger program says what it
takes from it in an HTML comment right above the block (neither GitHub nor DocC shows it):

    <!-- snippet given: application: MSALPublicClientApplication, account: MSALAccount -->
        the block becomes the body of an `async throws` function with these parameters;
    <!-- snippet
    prelude:
    final class SignInViewController { ... }
    -->
        these declarations (and any imports) come before the block.

Both may be given (`given:` on its own line). `within: TYPE` makes the function a method of TYPE (for `self`).
`apple` marks code for Apple platforms only (UIKit, AppKit): it is checked against the transcribed Apple SDK
surface by `scripts/check-snippets.py --apple` after an `MSAL_APPLE_SURFACE` build (scripts/apple-surface.sh), and
skipped otherwise. A block without imports gets `import MSAL`. Errors point at the snippet's own file and line
(#sourceLocation). Exits 1 if any snippet fails to compile.
"""
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```swift[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"<!--\s*snippet\b((?:(?!-->).)*)-->\s*\n(?:[ \t]*\n)?$", re.S)


class Snippet:
    def __init__(self, path, line, code, given, prelude, within, apple):
        self.path, self.line, self.code, self.given = path, line, code, given
        self.prelude, self.within, self.apple = prelude, within, apple


def documents():
    return ["README.md"] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("Sources/*/*.docc/*.md"))


def snippets():
    for path in documents():
        text = open(path, encoding="utf-8").read()
        for match in FENCE.finditer(text):
            before = text[:match.start()]
            marker = MARKER.search(before[-4000:])
            given, prelude, within, apple = "", "", "", False
            if marker:
                body = marker.group(1)
                if re.search(r"^\s*@", body, re.M):
                    raise SystemExit(f"error: {path}: a snippet comment has a line starting with @, which DocC reads "
                                     "as a directive even in a comment; start the line with a /* comment */")
                part = re.search(r"given:(.*?)(?:\n|$)", body)
                given = part.group(1).strip() if part else ""
                part = re.search(r"within:(.*?)(?:\n|$)", body)
                within = part.group(1).strip() if part else ""
                body = re.sub(r"^within:.*$", "", body, flags=re.M)
                part = re.search(r"prelude:\n(.*)", body, re.S)
                prelude = part.group(1) if part else ""
                apple = re.match(r"\s*apple\b", body) is not None
            line = before.count("\n") + 2  # the first line of code, after the fence
            yield Snippet(path, line, match.group(1), given, prelude, within, apple)


def module_flags():
    """The include paths and C module maps of every module the package built, and the target triple."""
    yaml = open(".build/debug.yaml", encoding="utf-8").read()
    flags, seen = [], set()
    modules = None
    for line in yaml.splitlines():
        stripped = line.strip()
        if not stripped.startswith("args: [\"/") or "swiftc" not in stripped.split(",")[0]:
            continue
        args = json.loads(stripped[len("args:"):].strip())
        for index, arg in enumerate(args[:-1]):
            value = args[index + 1]
            if arg == "-Xcc" and (value.startswith("-fmodule-map-file=") or value == "-I"):
                pair = (value, args[index + 3] if value == "-I" else None)
                if pair not in seen:
                    seen.add(pair)
                    flags += ["-Xcc", value] + (["-Xcc", pair[1]] if pair[1] else [])
            elif arg == "-I" and value.endswith("/Modules") and modules is None:
                modules = value
            elif arg == "-target" and "-target" not in flags:
                flags += ["-target", value]
    if modules is None:
        raise SystemExit("error: no build in .build (run `swift build --traits Tools` first)")
    return ["-I", modules] + flags


def source(snippet):
    path, line, code, given, prelude = snippet.path, snippet.line, snippet.code, snippet.given, snippet.prelude
    has_import = re.search(r"^\s*(?:@\w+\s+)*import\s", code, re.M)
    head = "" if has_import else "import MSAL\n"
    location = f'#sourceLocation(file: "{path}", line: {line})\n'
    if given or snippet.within:
        imports = "".join(l + "\n" for l in code.splitlines() if re.match(r"\s*import\s", l))
        body = "".join(l + "\n" if not re.match(r"\s*import\s", l) else "\n" for l in code.splitlines())
        function = f"func snippet({given}) async throws {{\n" + location + body + "#sourceLocation()\n}\n"
        if snippet.within:
            function = f"extension {snippet.within} {{\n{function}}}\n"
        return head + imports + prelude + "\n" + function
    return head + prelude + "\n" + location + code + "#sourceLocation()\n"


def check(item, flags, directory, index):
    folder = os.path.join(directory, str(index))
    os.makedirs(folder)
    main = os.path.join(folder, "main.swift")
    with open(main, "w", encoding="utf-8") as handle:
        handle.write(source(item))
    command = ["swiftc", "-typecheck", "-swift-version", "6", "-module-name", f"Snippet{index}"] + flags + [main]
    result = subprocess.run(command, capture_output=True, text=True)
    return item, result


def main():
    apple = "--apple" in sys.argv
    every = list(snippets())
    items = [item for item in every if item.apple == apple]
    if "--list" in sys.argv:
        for item in every:
            print(f"{item.path}:{item.line}: {len(item.code.splitlines())} lines"
                  + (f" (given: {item.given})" if item.given else "") + (" [apple]" if item.apple else ""))
        return 0
    flags = module_flags()
    if apple:
        surface = sys.argv[sys.argv.index("--apple") + 1:][:1]
        if not surface:
            raise SystemExit("usage: check-snippets.py --apple SURFACE_DIR (after an MSAL_APPLE_SURFACE build)")
        flags += ["-I", os.path.abspath(surface[0])]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="msal-snippets-") as directory:
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            jobs = [pool.submit(check, item, flags, directory, index) for index, item in enumerate(items)]
            for job in jobs:
                item, result = job.result()
                if result.returncode != 0:
                    failed += 1
                    print(f"FAIL {item.path}:{item.line}\n{result.stderr}{result.stdout}", file=sys.stderr)
    kind = "Apple-only snippets" if apple else "snippets"
    others = "" if apple else f" ({len(every) - len(items)} Apple-only, checked by scripts/apple-surface.sh)"
    print(f"{kind}: {len(items) - failed} of {len(items)} compile{others}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
