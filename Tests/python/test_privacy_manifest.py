"""The privacy manifests (PrivacyInfo.xcprivacy) of the targets an Apple app links through the MSAL product.

Apple rejects an upload whose binary uses a required-reason API that no manifest declares (ITMS-91053). For each
target, the required-reason APIs its Swift sources call outside Linux-only code are found by name, and its manifest
must declare exactly those categories, each with the reason that fits, and be copied as the target's resource.
"""
import plistlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The targets of the MSAL product compiled on Apple platforms (Package.swift: MSAL's dependencies).
TARGETS = ["MSAL", "MSALCore", "MSALSupport", "MSALFileStorage", "MSALSecureStorage", "MSALCertificates",
           "MSALURLSession"]

# Apple's required-reason API categories: the API names a source may use, and the reason that fits this library
# ("Describing use of required reason API"): C617.1 files in the app's or app group's container (the token cache,
# its lock, the key file, a federated token file); 35F9.1 elapsed time between events in the app (request timings).
CATEGORIES = {
    "NSPrivacyAccessedAPICategoryFileTimestamp": (
        r"\b(?:stat|fstat|lstat|fstatat|getattrlist|getattrlistbulk|fgetattrlist)\(|\.modificationDate\b|"
        r"\.creationDate\b|contentModificationDateKey|creationDateKey|fileModificationDate",
        "C617.1"),
    "NSPrivacyAccessedAPICategorySystemBootTime": (
        r"\bsystemUptime\b|\bmach_absolute_time\b|\buptimeNanoseconds\b", "35F9.1"),
    "NSPrivacyAccessedAPICategoryDiskSpace": (
        r"volumeAvailableCapacity|volumeTotalCapacity|\bstatv?fs\(|systemFreeSize", None),
    "NSPrivacyAccessedAPICategoryUserDefaults": (r"\bUserDefaults\b", None),
    "NSPrivacyAccessedAPICategoryActiveKeyboards": (r"\bactiveInputModes\b", None),
}


def apple_lines(path):
    """The code lines of a Swift file that an Apple build compiles: comments and `#if os(Linux)` branches left out."""
    stack = []  # per #if: whether the current branch is Linux-only
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if stripped.startswith("#if"):
            stack.append(stripped in ("#if os(Linux)", "#if canImport(Glibc)"))
            continue
        if stripped.startswith("#elseif") or stripped == "#else":
            if stack:
                stack[-1] = stripped in ("#elseif os(Linux)", "#elseif canImport(Glibc)")
            continue
        if stripped.startswith("#endif"):
            if stack:
                stack.pop()
            continue
        if any(stack) or stripped.startswith("//"):
            continue
        yield line.split("//")[0] if "://" not in line else line


def used_categories(target):
    found = {}
    for source in sorted((ROOT / "Sources" / target).rglob("*.swift")):
        for number, line in enumerate(apple_lines(source), 1):
            for category, (pattern, _) in CATEGORIES.items():
                if re.search(pattern, line):
                    found.setdefault(category, f"{source.relative_to(ROOT)}: {line.strip()}")
    return found


def declared(target):
    manifest = ROOT / "Sources" / target / "PrivacyInfo.xcprivacy"
    if not manifest.exists():
        return None
    with manifest.open("rb") as handle:
        return plistlib.load(handle)


@pytest.mark.parametrize("target", TARGETS)
def test_manifest_declares_exactly_the_apis_used(target):
    used = used_categories(target)
    manifest = declared(target)
    if not used:
        assert manifest is None or not manifest.get("NSPrivacyAccessedAPITypes"), f"{target} declares unused APIs"
        return
    assert manifest is not None, f"{target} uses {sorted(used)} ({list(used.values())[0]}) but has no privacy manifest"
    assert manifest.get("NSPrivacyTracking") is False
    assert manifest.get("NSPrivacyTrackingDomains") == []
    entries = {entry["NSPrivacyAccessedAPIType"]: entry["NSPrivacyAccessedAPITypeReasons"]
               for entry in manifest["NSPrivacyAccessedAPITypes"]}
    assert set(entries) == set(used), f"{target}: declared {sorted(entries)}, used {used}"
    for category, reasons in entries.items():
        expected = CATEGORIES[category][1]
        assert expected is not None, f"{target} uses {category}, which has no reason chosen for this library"
        assert reasons == [expected], f"{target}: {category} reasons {reasons}"
    package = (ROOT / "Package.swift").read_text(encoding="utf-8")
    block = re.search(r'\.target\(\s*name: "%s",(.*?)\n        \),' % re.escape(target), package, re.S)
    assert block and '.copy("PrivacyInfo.xcprivacy")' in block.group(1), f"{target} does not ship its manifest"


def test_collected_data_is_declared_for_functionality_only():
    manifest = declared("MSALCore")
    assert manifest is not None
    kinds = {entry["NSPrivacyCollectedDataType"]: entry for entry in manifest["NSPrivacyCollectedDataTypes"]}
    assert set(kinds) == {"NSPrivacyCollectedDataTypeEmailAddress", "NSPrivacyCollectedDataTypeUserID",
                          "NSPrivacyCollectedDataTypeOtherDiagnosticData"}
    for entry in kinds.values():
        assert entry["NSPrivacyCollectedDataTypeTracking"] is False
        assert entry["NSPrivacyCollectedDataTypePurposes"] == ["NSPrivacyCollectedDataTypePurposeAppFunctionality"]
