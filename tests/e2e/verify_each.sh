#!/usr/bin/env bash
# -verify-each checks the machine IR after every backend pass and must change
# nothing else: every example, kernel and conformance program, both models, -O0 to
# -O3 with and without pipelining, gives the same assembly (or the same failure)
# with the verifier on as without it.
#   verify_each.sh BINDIR SOURCE_DIR [LEVELS]   (LEVELS: "O0 O2"; default all four)
set -uo pipefail
bindir=$1 src=$2 levels=${3:-O0 O1 O2 O3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 bad=0
for f in "$src"/examples/*.w2 "$src"/tests/conformance/*.w2 "$src"/bench/kernels/*.w2; do
    for cpu in warp iwarp; do
        for opt in $levels; do
            for swp in "" -fno-swp; do
                flags=(-mcpu=$cpu -$opt $swp -S)
                n=$((n + 1))
                "$bindir/warp-cc" "${flags[@]}" -o "$work/plain.s" "$f" 2>"$work/plain.err"
                plain=$?
                "$bindir/warp-cc" "${flags[@]}" -verify-each -o "$work/verified.s" "$f" 2>"$work/verified.err"
                verified=$?
                if [ $plain != $verified ] || ! cmp -s "$work/plain.s" "$work/verified.s" ||
                   ! cmp -s "$work/plain.err" "$work/verified.err"; then
                    echo "FAIL: $f ${flags[*]}: exit $plain without -verify-each, $verified with it"
                    cat "$work/verified.err"
                    bad=$((bad + 1))
                fi
                rm -f "$work/plain.s" "$work/verified.s"
            done
        done
    done
done
echo "$n compilations, $bad differ with -verify-each"
[ $bad = 0 ]
