#!/usr/bin/env bash
# bench/fuzz.sh: long libFuzzer runs of the targets in tests/fuzz (built by `make fuzz-build`,
# run by `make fuzz`). Never part of `make test` (which replays the committed corpora).
#
#   bench/fuzz.sh [--seconds N] [TARGET...]      default: every build/fuzz/fuzz_* for 300 s
#   TARGET lang-<language> (lang-python, lang-javascript, lang-typescript, lang-tsx, lang-go,
#   lang-rust, lang-java, lang-c, lang-cpp, lang-c-sharp, lang-scala) runs fuzz_lang pinned
#   to one language (LOUPE_FUZZ_LANG, see tests/fuzz/fuzz_lang.c) with the dictionary
#   tests/fuzz/lang-<language>.dict, seeded from the committed tests/fuzz/corpus/lang/.
#   env: OUT (default bench/RESULTS-fuzz.md; "-" for no file), FUZZ_JOBS_ARGS (extra
#        libFuzzer flags), FUZZ_WORK (default build/fuzz/work)
#
# Each target runs with its committed corpus tests/fuzz/corpus/<target>/ as a read-only seed
# and a working corpus FUZZ_WORK/<target>/corpus (kept between runs, where new inputs go);
# crashes, leaks, timeouts and out-of-memory inputs land in FUZZ_WORK/<target>/crashes/ and
# the log in FUZZ_WORK/<target>/log. Copy an interesting find (after -minimize_crash=1 or
# -merge=1) into tests/fuzz/corpus/<target>/ so `make test` replays it from then on.
# Reports per target: seconds, executions, executions per second, corpus size, crashes.
# Exits 1 when any target crashed.
set -uo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER=300
TARGETS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) SECONDS_PER=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) TARGETS+=("$1"); shift ;;
    esac
done
if [ ${#TARGETS[@]} -eq 0 ]; then
    for b in build/fuzz/fuzz_*; do
        [ -x "$b" ] && TARGETS+=("${b#build/fuzz/fuzz_}")
    done
fi
[ ${#TARGETS[@]} -gt 0 ] || { echo "bench/fuzz.sh: no targets; run make fuzz-build" >&2; exit 2; }
WORK=${FUZZ_WORK:-build/fuzz/work}
OUT=${OUT:-bench/RESULTS-fuzz.md}

rows=()
failed=0
for t in "${TARGETS[@]}"; do
    base=$t
    pin=()
    case "$t" in lang-*) base=lang; pin=(env LOUPE_FUZZ_LANG="${t#lang-}") ;; esac
    bin=build/fuzz/fuzz_$base
    [ -x "$bin" ] || { echo "bench/fuzz.sh: $bin missing; run make fuzz-build" >&2; exit 2; }
    dir=$WORK/$t
    mkdir -p "$dir/corpus" "$dir/crashes" tests/fuzz/corpus/"$base"
    dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    echo "== fuzz_$t: ${SECONDS_PER}s (log $dir/log)"
    t0=$(date +%s)
    # -timeout: one input taking longer is a finding (a hang); -rss_limit_mb likewise.
    nice "${pin[@]}" "$bin" -max_total_time="$SECONDS_PER" -timeout=30 -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$dir/crashes/" "${dict[@]}" \
        ${FUZZ_JOBS_ARGS:-} "$dir/corpus" tests/fuzz/corpus/"$base" >"$dir/log" 2>&1
    rc=$?
    t1=$(date +%s)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2)
    ncorp=$(find "$dir/corpus" -type f | wc -l)
    found=$(grep -c -E '^(==[0-9]+==ERROR|SUMMARY: |fuzz invariant failed|ALARM: working on the last Unit for)' "$dir/log")
    result=ok
    if [ $rc -ne 0 ]; then
        result="CRASH (exit $rc): $(grep -E -m1 'SUMMARY:|invariant failed|ERROR: libFuzzer' "$dir/log" | cut -c1-120)"
        failed=1
    fi
    echo "   executions=${execs:-?} exec/s=${rate:-?} cov=${cov:-?} corpus=$ncorp seconds=$((t1 - t0)) result=$result"
    [ "$found" -gt 0 ] && [ $rc -eq 0 ] && echo "   (log mentions $found findings; see $dir/log)"
    rows+=("| fuzz_$t | $((t1 - t0)) | ${execs:-?} | ${rate:-?} | ${cov:-?} | $ncorp | $result |")
done

if [ "$OUT" != "-" ]; then
    # Rows of targets not run this time are kept from the previous file, so targets can be
    # run one at a time.
    kept=()
    if [ -f "$OUT" ]; then
        while IFS= read -r line; do
            keep=1
            for t in "${TARGETS[@]}"; do
                case "$line" in "| fuzz_$t |"*) keep=0 ;; esac
            done
            [ $keep -eq 1 ] && kept+=("$line")
        done < <(grep '^| fuzz_' "$OUT")
    fi
    {
        echo "# Fuzzing runs (bench/fuzz.sh)"
        echo
        echo "Last run $(date -u '+%Y-%m-%d %H:%M') UTC on $(nproc) cores (shared with other jobs, so"
        echo "executions per second are low and noisy), clang $(clang --version | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1), libFuzzer + ASan + UBSan,"
        echo "library built with LP_ARENA_DEBUG (every arena allocation is its own malloc)."
        echo "Rerun: \`make fuzz\` (FUZZ_SECONDS=300 per target by default) or"
        echo "\`bench/fuzz.sh --seconds N TARGET...\`."
        echo
        echo "| target | seconds | executions | exec/s | coverage (edges) | working corpus | result |"
        echo "|---|---|---|---|---|---|---|"
        { printf '%s\n' "${kept[@]}" "${rows[@]}" | grep '^| fuzz_' | sort; }
    } >"$OUT.tmp" && mv "$OUT.tmp" "$OUT"
    echo "wrote $OUT"
fi
exit $failed
