#!/usr/bin/env bash
# One conformance program on one model: compiled by warp-cc at -O0 to -O3, each with
# and without -fno-swp, run on warp-sim, and every output line compared exactly with
# the program's independent host reference (tests/e2e/run_example.sh does one run).
#   run_conformance.sh BINDIR DIR NAME REF_PROGRAM CPU
# Under -mcpu=warp the contract lets the compiler reject a program whose queue use it
# cannot prove safe (compile-time flow control); such a rejection passes here if the
# compiler's error says so, since the same program is also run on iwarp, which must
# accept it.
set -uo pipefail
bindir=$1 dir=$2 name=$3 ref=$4 cpu=$5
here=$(cd "$(dirname "$0")" && pwd)
runner=$here/../e2e/run_example.sh
failed=()
for opt in O0 O1 O2 O3; do
    for swp in "" -fno-swp; do
        flags=(-mcpu="$cpu" -"$opt")
        [ -n "$swp" ] && flags+=("$swp")
        if out=$("$runner" "$bindir" "$dir" "$name" "$ref" -- "${flags[@]}" 2>&1); then
            echo "$out" | tail -1
        elif [ "$cpu" = warp ] && echo "$out" | grep -qi 'error:.*flow.control'; then
            echo "REJECTED (compile-time flow control, allowed on warp): $name ${flags[*]}"
            echo "$out" | grep -i 'error:' | head -3
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
