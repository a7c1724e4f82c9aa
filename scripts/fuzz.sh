#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer: builds the fuzz targets of tests/fuzz
# with Debian's clang-19 (AddressSanitizer and UndefinedBehaviorSanitizer on)
# into build-fuzz/, then runs each target asked for (all by default) for a set
# time, one after the other. ctest's fuzz.* smoke tests need none of this.
#
#   scripts/fuzz.sh [-t SECONDS] [-T SECONDS] [-j JOBS] [TARGET...]
#       -t: how long each target runs (600 s); -T: how long one input may run
#       before it counts as a hang (60 s); the targets: all by default
#
# What a run keeps, in fuzz-out/TARGET/ (ignored by git):
#   corpus/   the inputs libFuzzer found that reach new code (seeds are read
#             from build-fuzz/fuzz/seeds, tests/fuzz/seeds and tests/fuzz/regress)
#   crashes/  every input that crashed, hung, leaked or broke a promise
#   log       libFuzzer's output; the closing stats are printed below
# A crash is fixed, then its input goes to tests/fuzz/regress/TARGET/ (minimised
# with: build-fuzz/bin/fuzz_TARGET -minimize_crash=1 -runs=10000 CRASH), where
# ctest's fuzz.TARGET replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=600 jobs=1 per_input=60
while getopts "t:T:j:" opt; do
    case $opt in
    t) seconds=$OPTARG ;;
    T) per_input=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) echo "usage: scripts/fuzz.sh [-t SECONDS] [-T SECONDS] [-j JOBS] [TARGET...]" >&2; exit 1 ;;
    esac
done
shift $((OPTIND - 1))

missing=()
for p in clang-19 libclang-rt-19-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "fuzz: installing ${missing[*]}"
    sudo=
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

mkdir -p fuzz-out
echo "fuzz: building into build-fuzz/ (log: fuzz-out/build.log)"
if ! { CC=clang-19 cmake -S . -B build-fuzz -DWARP_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
       cmake --build build-fuzz -j2; } >fuzz-out/build.log 2>&1; then
    cat fuzz-out/build.log
    exit 1
fi

if [ $# -eq 0 ]; then
    set --
    for f in tests/fuzz/fuzz_*.c; do
        n=${f##*/fuzz_}
        set -- "$@" "${n%.c}"
    done
fi

status=0
for t in "$@"; do
    bin=build-fuzz/bin/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: no target '$t'" >&2; exit 1; }
    # corpora= and dict= of this target, written by tests/fuzz/CMakeLists.txt.
    # shellcheck disable=SC1090
    . "build-fuzz/fuzz/$t.env"
    out=fuzz-out/$t
    mkdir -p "$out/corpus" "$out/crashes"
    opts=()
    [ -f "$dict" ] && opts+=(-dict="$dict")
    # More than one job runs libFuzzer's fork mode, which logs to fuzz-N.log.
    [ "$jobs" -gt 1 ] && opts+=(-jobs="$jobs" -workers="$jobs")
    echo "fuzz: $t for $seconds s (log: $out/log)"
    # shellcheck disable=SC2086
    # -timeout=60: a hang is an input that runs a minute; less misfires when the
    # machine is shared and the fuzzer is starved of CPU for a while.
    "$bin" -max_total_time="$seconds" -timeout="$per_input" -rss_limit_mb=4096 -max_len=65536 \
        -print_final_stats=1 \
        -artifact_prefix="$out/crashes/" "${opts[@]}" "$out/corpus" $corpora >"$out/log" 2>&1 || status=1
    [ "$jobs" -gt 1 ] && cat fuzz-*.log >>"$out/log" 2>/dev/null && rm -f fuzz-*.log
    grep -E "^#[0-9]+.*(DONE|pulse|NEW)" "$out/log" | tail -1
    grep -E "^stat::(number_of_executed_units|peak_rss_mb|new_units_added)" "$out/log" || true
    echo "fuzz: $t: corpus $(ls "$out/corpus" | wc -l) files, crashes $(ls "$out/crashes" | wc -l)"
done
exit $status
