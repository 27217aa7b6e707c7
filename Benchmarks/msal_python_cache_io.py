"""Times MSAL for Python's parse (SerializableTokenCache.deserialize) and serialize of a unified cache file, for
comparison with `msal-bench cache-io --cache FILE` on the same file. Prints one JSON object (medians).

Usage: msal_python_cache_io.py FILE [ROUNDS]
"""
import json
import statistics
import sys
import time

import msal


def main(path, rounds):
    with open(path) as f:
        text = f.read()
    parses, serializes = [], []
    for _ in range(rounds):
        cache = msal.SerializableTokenCache()
        start = time.perf_counter_ns()
        cache.deserialize(text)
        parses.append((time.perf_counter_ns() - start) / 1e6)
        cache.has_state_changed = True
        start = time.perf_counter_ns()
        cache.serialize()
        serializes.append((time.perf_counter_ns() - start) / 1e6)
    print(json.dumps({"sdk": "msal-python " + msal.__version__, "file": path, "bytes": len(text.encode()),
                      "parse_ms": statistics.median(parses), "serialize_ms": statistics.median(serializes)}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 7)
