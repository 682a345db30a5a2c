#!/usr/bin/env bash
# bench/scan.sh: walk and read+hash speed of src/scan against find and cat, same run.
#
#   bench/scan.sh [ROOT]        default ROOT: Debian golang-1.19-src (/usr/share/go-1.19/src),
#                               installed with tools/apt-ensure when missing
#   env: LOUPE (default build/loupe), RUNS (default 5), OUT (default bench/RESULTS-scan.md)
#
# Everything is measured warm (one untimed pass first), RUNS times, and the median kept.
# Baselines, timed as whole processes like `loupe debug-scan`:
#   find      find ROOT -type f | wc -l                      (names only, uses d_type)
#   find+stat find ROOT -type f -printf '%s %T@ %i\n' | wc -l (stats every file, as our walk)
#   cat       find ROOT -type f -print0 | xargs -0 cat >/dev/null  (reads every byte)
# loupe's own numbers come from `debug-scan --json` (walk_ms, hash_ms: timed inside the
# process) plus the process wall time of the walk-only run. Never part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=${1:-/usr/share/go-1.19/src}
LOUPE=${LOUPE:-build/loupe}
RUNS=${RUNS:-5}
OUT=${OUT:-bench/RESULTS-scan.md}

if [ ! -d "$ROOT" ] && [ "$ROOT" = /usr/share/go-1.19/src ]; then
    tools/apt-ensure golang-1.19-src
fi
[ -d "$ROOT" ] || { echo "bench/scan.sh: $ROOT is not a folder" >&2; exit 2; }
[ -x "$LOUPE" ] || { echo "bench/scan.sh: $LOUPE missing; run make first" >&2; exit 2; }
ROOT=$(realpath "$ROOT")

now_ns() { date +%s%N; }
# ms of one run of a shell command
time_ms() {
    local t0 t1
    t0=$(now_ns)
    bash -c "$1" >/dev/null
    t1=$(now_ns)
    echo $(((t1 - t0) / 1000))e-3
}
median() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
jget() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

FIND="find '$ROOT' -type f | wc -l"
FIND_STAT="find '$ROOT' -type f -printf '%s %T@ %i\n' | wc -l"
CAT="find '$ROOT' -type f -print0 | xargs -0 cat > /dev/null"
WALK="'$LOUPE' debug-scan '$ROOT' --allow-broad-root --json"

# Warm-up: page cache and dentries.
for c in "$FIND" "$FIND_STAT" "$CAT" "$WALK"; do bash -c "$c" >/dev/null; done
"$LOUPE" debug-scan "$ROOT" --allow-broad-root --hash --json >/dev/null

find_ms=() find_stat_ms=() cat_ms=() walk_proc_ms=() walk_ms=() hash_ms=() mbps=()
for _ in $(seq "$RUNS"); do
    find_ms+=("$(time_ms "$FIND")")
    find_stat_ms+=("$(time_ms "$FIND_STAT")")
    cat_ms+=("$(time_ms "$CAT")")
    walk_proc_ms+=("$(time_ms "$WALK")")
    j=$("$LOUPE" debug-scan "$ROOT" --allow-broad-root --json)
    walk_ms+=("$(jget "$j" walk_ms)")
    j=$("$LOUPE" debug-scan "$ROOT" --allow-broad-root --hash --json)
    hash_ms+=("$(jget "$j" hash_ms)")
    mbps+=("$(jget "$j" mb_per_s)")
done

nfiles=$(bash -c "$FIND")
all_bytes=$(find "$ROOT" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
files=$(jget "$j" files)
hashed_files=$(jget "$j" hashed_files)
hashed_bytes=$(jget "$j" hashed_bytes)
skips=$(python3 -c 'import json,sys; print(", ".join(f"{k}={v}" for k, v in json.loads(sys.argv[1])["skip_counts"].items() if v))' "$j")
m_find=$(median "${find_ms[@]}")
m_find_stat=$(median "${find_stat_ms[@]}")
m_cat=$(median "${cat_ms[@]}")
m_walk_proc=$(median "${walk_proc_ms[@]}")
m_walk=$(median "${walk_ms[@]}")
m_hash=$(median "${hash_ms[@]}")
m_mbps=$(median "${mbps[@]}")

python3 - "$OUT" <<EOF
import sys, datetime, os, platform
out = sys.argv[1]
cat_mbps = $all_bytes / 1e6 / ($m_cat / 1e3)
rows = [
    ("find -type f, wc -l", "$m_find", "", "baseline (names only)"),
    ("find -printf size/mtime/inode, wc -l", "$m_find_stat", "", "baseline (stats each file)"),
    ("loupe debug-scan (process)", "$m_walk_proc", "",
     f"{$m_walk_proc / $m_find_stat:.2f}x find+stat, {$m_walk_proc / $m_find:.2f}x find"),
    ("loupe walk (in process)", "$m_walk", "", f"{$m_walk / $m_find_stat:.2f}x find+stat"),
    ("cat every file (find, xargs cat)", "$m_cat", f"{cat_mbps:.0f}", "baseline (reads all $all_bytes bytes)"),
    ("loupe read+hash (in process)", "$m_hash", f"{$m_mbps:.0f}",
     f"{$m_mbps / cat_mbps:.2f}x cat MB/s; {$m_hash / $m_cat:.2f}x cat time"),
]
lines = [
    "# src/scan benchmark (bench/scan.sh)",
    "",
    f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
    f"- machine: {os.cpu_count()} cores, {platform.machine()}, kernel {platform.release()}",
    "- corpus: \`$ROOT\` ($nfiles files, $all_bytes bytes)",
    "- loupe walk: $files files; read+hash kept $hashed_files text files ($hashed_bytes bytes;"
    " a binary's read stops at its first 64 KiB); skips: $skips",
    "- warm page cache, median of $RUNS runs, all timings in the same run; load average at"
    f" the end {os.getloadavg()[0]:.2f} (shared machine: compare the ratios, not the ms)",
    "",
    "| what | ms (median) | MB/s | vs baseline |",
    "|---|---:|---:|---|",
]
for name, ms, mb, note in rows:
    lines.append(f"| {name} | {float(ms):.1f} | {mb} | {note} |")
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
print(text)
EOF
