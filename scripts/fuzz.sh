#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ (with the fuzzer and address sanitizers) and runs each for a bounded time.
#
#   scripts/fuzz.sh [seconds-per-target] [target ...]      # default: 60 s, every target under Fuzz/Targets
#
# Each target runs on one core, FUZZ_JOBS targets at a time (default: the number of cores), on a scratch corpus seeded from Fuzz/Corpus/<target> and Fuzz/Regressions/<target>;
# new corpus units stay in the scratch directory (Fuzz/.build-fuzz/run/corpus/<target>). A crash, a broken invariant,
# a timeout or running out of memory makes the script exit non-zero after all targets ran, and the input is copied to
# Fuzz/Regressions/<target>/ so that `swift test` replays it (FuzzRegressionTests) once the bug is fixed.
#
# Environment: FUZZ_JOBS (targets run at once), FUZZ_BUILD_ONLY=1 (build, run nothing), FUZZ_SKIP_BUILD=1 (use the
# last build), FUZZ_RSS_LIMIT_MB (default 2048), FUZZ_TIMEOUT (seconds per
# input, default 20), MSAL_BUILD_LOCK (a file to `flock` around the build, for machines that share a working tree),
# FUZZ_FLAGS (extra libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

seconds="${1:-60}"
shift || true
if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for dir in Fuzz/Targets/*/; do targets+=("$(basename "$dir")"); done
fi

scratch="Fuzz/.build-fuzz"
run="$scratch/run"
rss="${FUZZ_RSS_LIMIT_MB:-2048}"
timeout="${FUZZ_TIMEOUT:-20}"

# The address sanitizer and -O apply to the package's own modules and the harnesses only (Package.swift reads
# MSAL_FUZZ_INSTRUMENT, Fuzz/Package.swift sets its own): the dependencies are built as in any debug build, with
# --sanitize=fuzzer's coverage only (which also links libFuzzer and its main), so the build does not instrument and
# optimize all of swift-nio, swift-certificates and BoringSSL for the address sanitizer. -sanitize=fuzzer,address
# must reach swiftc as one flag (`-sanitize=fuzzer -sanitize=address` would leave the Swift code without coverage: the
# last wins). The debug configuration keeps -enable-testing, which the harnesses' `@testable import` needs; the -O
# given per module comes after its -Onone, so it wins. No index store: nothing reads it. -gline-tables-only keeps the
# file and line of every frame a crash report prints and drops the rest of the debug information.
export MSAL_FUZZ_INSTRUMENT=1
build=(swift build --package-path Fuzz --scratch-path "$scratch" --sanitize=fuzzer --disable-index-store)
if [ "${FUZZ_SKIP_BUILD:-0}" != "1" ]; then
    start=$(date +%s)
    # The package manager keeps the build plan of the local `msal-swift` dependency in the scratch folder and does not
    # see a source file added to it since: when the list of source files changes, plan anew.
    sources_stamp="$(git ls-files -co --exclude-standard Sources Fuzz/Harness Fuzz/Loopback Fuzz/Targets | sha256sum | cut -c1-64)"
    if [ -d "$scratch" ] && [ "$(cat "$scratch/sources.stamp" 2>/dev/null)" != "$sources_stamp" ]; then
        rm -f "$scratch/debug.yaml" "$scratch/build.db" "$scratch"/*/debug/description.json
    fi
    mkdir -p "$scratch"
    echo "$sources_stamp" >"$scratch/sources.stamp"
    # (gold warns once per sanitizer symbol it cannot export: noise.)
    if [ -n "${MSAL_BUILD_LOCK:-}" ]; then
        flock "$MSAL_BUILD_LOCK" "${build[@]}"
    else
        "${build[@]}"
    fi 2>&1 | { grep -v "ld.gold: warning: Cannot export local symbol" || true; }
    echo "fuzz build: $(( $(date +%s) - start )) s"
fi
[ "${FUZZ_BUILD_ONLY:-0}" = "1" ] && exit 0
bin="$("${build[@]}" --show-bin-path)"

# Swift's runtime keeps caches that LeakSanitizer reports at exit; leaks are not what these targets look for.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
# Swift's own crash backtracer reads the crashed process's memory, which the address sanitizer takes for a bad access
# (and it can hang); libFuzzer and the sanitizer print the stack instead.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

# One target: runs it, then writes its line of the table to $run/<target>.result and, when it failed, keeps its
# artifacts as regression inputs and writes $run/<target>.failed.
run_target() {
    local target="$1" executable="$bin/fuzz-$1" log="$run/$1.log" status=0
    rm -f "$run/$target.result" "$run/$target.failed" "$run/$target.executions"
    if [ ! -x "$executable" ]; then
        echo "no fuzz target $target ($executable)" >&2
        printf '%-24s %12s\n' "$target" "missing" >"$run/$target.result"
        touch "$run/$target.failed"
        return
    fi
    rm -rf "$run/artifacts/$target"
    mkdir -p "$run/corpus/$target" "$run/artifacts/$target" "Fuzz/Corpus/$target"
    local seeds=("Fuzz/Corpus/$target")
    [ -d "Fuzz/Regressions/$target" ] && seeds+=("Fuzz/Regressions/$target")
    # shellcheck disable=SC2086
    "$executable" "$run/corpus/$target" "${seeds[@]}" -max_total_time="$seconds" -timeout="$timeout" \
        -rss_limit_mb="$rss" -print_final_stats=1 -artifact_prefix="$run/artifacts/$target/" ${FUZZ_FLAGS:-} \
        >"$log" 2>&1 || status=$?
    local executions rate cov ft corpus result
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    executions=${executions:-0}
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    cov=$(grep -o ' cov: [0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    ft=$(grep -o ' ft: [0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    corpus=$(grep -o ' corp: [0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    echo "$executions" >"$run/$target.executions"
    result="ok"
    if [ "$status" -ne 0 ]; then
        result="FAILED (exit $status, log $log)"
        touch "$run/$target.failed"
        mkdir -p "Fuzz/Regressions/$target"
        for artifact in "$run/artifacts/$target"/*; do
            [ -f "$artifact" ] || continue
            cp "$artifact" "Fuzz/Regressions/$target/"
            result="$result; kept Fuzz/Regressions/$target/$(basename "$artifact")"
        done
        grep -E 'ERROR: |Fatal error|fuzz target|SUMMARY' "$log" | head -5 >&2 || true
    fi
    printf '%-24s %12s %10s %8s %8s %8s  %s\n' "$target" "$executions" "${rate:--}" \
        "${cov:--}" "${ft:--}" "${corpus:--}" "$result" >"$run/$target.result"
}

jobs_limit="${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}"
mkdir -p "$run"
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_limit" ]; do wait -n || true; done
    run_target "$target" &
done
wait

failed=()
total=0
printf '\n%-24s %12s %10s %8s %8s %8s  %s\n' target executions exec/s cov ft corpus result
for target in "${targets[@]}"; do
    cat "$run/$target.result" 2>/dev/null || printf '%-24s %12s\n' "$target" "no result"
    [ -f "$run/$target.result" ] && [ ! -f "$run/$target.failed" ] || failed+=("$target")
    total=$((total + $(cat "$run/$target.executions" 2>/dev/null || echo 0)))
done
printf '%-24s %12s\n' total "$total"

if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzzing failed: ${failed[*]}" >&2
    exit 1
fi
