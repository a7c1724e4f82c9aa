#!/usr/bin/env bash
# One conformance program on one model: compiled by warp-cc at -O0 to -O3, each with
# and without -fno-swp, run on warp-sim, and every output line compared exactly with
# the program's independent host reference (tests/e2e/run_example.sh does one run).
#   run_conformance.sh BINDIR DIR NAME REF_PROGRAM CPU
# Under -mcpu=warp the contract lets the compiler reject a program whose I/O timing it
# cannot bound (compile-time flow control): such a program has NAME.warp-error, the
# diagnostic it must give, and run_example.sh then runs it with -fno-flow-control.
set -uo pipefail
bindir=$1 dir=$2 name=$3 ref=$4 cpu=$5
here=$(cd "$(dirname "$0")" && pwd)
runner=$here/../e2e/run_example.sh
failed=()
for opt in O0 O1 O2 O3; do
    for swp in "" -fno-swp; do
        flags=(-mcpu="$cpu" -"$opt" -verify-each)
        [ -n "$swp" ] && flags+=("$swp")
        if out=$("$runner" "$bindir" "$dir" "$name" "$ref" -- "${flags[@]}" 2>&1); then
            echo "$out" | tail -1
        else
            echo "$out" | tail -45
            failed+=("${flags[*]}")
        fi
    done
done
if [ ${#failed[@]} -ne 0 ]; then
    echo "FAIL: $name under: $(printf '[%s] ' "${failed[@]}")"
    exit 1
fi
