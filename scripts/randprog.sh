#!/usr/bin/env bash
# A campaign of random valid W2 programs run differentially (tests/randprog/):
# N programs from seed S, each compiled at -O0..-O3 for Warp and iWarp, run on
# warp-sim and compared with the reference interpreter. Prints a progress line
# every 100 programs, each failure (saved with its inputs in OUT), and a summary.
# warp-cc runs with -verify-each: the machine IR is checked after every pass.
#   scripts/randprog.sh [-b BUILD] [-s SEED] [-n COUNT] [-j JOBS] [-o OUT]
# e.g. nice -n 19 scripts/randprog.sh -b build-asan -s 1000000 -n 2000 -j 2
set -euo pipefail
cd "$(dirname "$0")/.."
build=build seed=1000 count=1000 jobs=2 out=randprog-findings
while getopts "b:s:n:j:o:" opt; do
    case $opt in
    b) build=$OPTARG ;; s) seed=$OPTARG ;; n) count=$OPTARG ;; j) jobs=$OPTARG ;; o) out=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD] [-s SEED] [-n COUNT] [-j JOBS] [-o OUT]" >&2; exit 2 ;;
    esac
done
exec python3 tests/randprog/randprog.py --bin "$build/bin" --seed "$seed" --count "$count" \
    --jobs "$jobs" --save "$out" --quiet --progress 100 --flags=-verify-each
