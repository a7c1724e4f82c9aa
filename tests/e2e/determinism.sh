#!/usr/bin/env bash
# The same input gives byte-identical IR, assembly, objects, images and simulator
# output, so regression suites can compare them.
set -euo pipefail
bindir=$1 exdir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for src in "$exdir"/*.w2; do
    name=$(basename "$src" .w2)
    ins=()
    for f in "$exdir/$name".*; do
        case "${f##*.}" in w2|expected|warp-error) ;; *) ins+=(--in "${f##*.}=$f") ;; esac
    done
    for cpu in warp iwarp; do
        # an example Warp cannot time runs there with run-time waits
        fc=()
        [ $cpu = warp ] && [ -f "$exdir/$name.warp-error" ] && fc=(-fno-flow-control)
        for run in 1 2; do
            d="$work/$run"
            mkdir -p "$d"
            "$bindir/warp-cc" -mcpu=$cpu "${fc[@]}" -O2 -emit-llvm -o "$d/$name.ll" "$src"
            "$bindir/warp-cc" -mcpu=$cpu "${fc[@]}" -O2 -S -o "$d/$name.s" "$src"
            "$bindir/warp-cc" -mcpu=$cpu "${fc[@]}" -O2 -c -o "$d/$name.o" "$src"
            "$bindir/warp-cc" -mcpu=$cpu "${fc[@]}" -O2 -o "$d/$name.img" "$src"
            "$bindir/warp-sim" "$d/$name.img" "${ins[@]}" --stats >"$d/$name.out" 2>&1
        done
        for ext in ll s o img out; do
            if ! cmp -s "$work/1/$name.$ext" "$work/2/$name.$ext"; then
                echo "FAIL: $name.$ext differs between two identical runs (-mcpu=$cpu)"
                fail=1
            fi
        done
    done
done
[ $fail -eq 0 ] && echo "PASS: every stage's output is byte-identical across runs"
exit $fail
