#!/usr/bin/env bash
# End-to-end test of one example: compile with warp-cc under the given flags, run on
# warp-sim, and compare every output number with the host reference's, exactly.
# An example whose I/O cannot be timed at compile time has NAME.warp-error, the
# diagnostic warp-cc must give for -mcpu=warp (NAME.warp-error-O0 and so on: at that
# level only): the test checks that it does, then runs the example with
# -fno-flow-control (cells wait for their queues at run time).
#   run_example.sh BINDIR EXAMPLE_DIR NAME REF_PROGRAM -- WARP_CC_FLAGS...
set -euo pipefail
bindir=$1 exdir=$2 name=$3 ref=$4
shift 4
[ "${1:-}" = "--" ] && shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

flags=("$@")
cpu=warp level=O0
for a in "$@"; do case "$a" in -mcpu=*) cpu=${a#-mcpu=} ;; -fno-flow-control) cpu=none ;; -O[0-3]) level=${a#-} ;; esac; done
expect=$exdir/$name.warp-error
[ -f "$expect" ] || expect=$exdir/$name.warp-error-$level
if [ "$cpu" = warp ] && [ -f "$expect" ]; then
    expected=$(cat "$expect")
    if "$bindir/warp-cc" "$@" -o "$work/$name.img" "$exdir/$name.w2" 2>"$work/err"; then
        echo "FAIL: warp-cc accepted $name with flags $*, but its I/O cannot be timed on Warp"
        exit 1
    fi
    cat "$work/err"
    if [ -e "$work/$name.img" ] || ! grep -qF "$expected" "$work/err"; then
        echo "FAIL: $name with flags $*: expected the diagnostic '$expected' and no image"
        exit 1
    fi
    echo "rejected as expected; running it with -fno-flow-control"
    flags+=(-fno-flow-control)
fi
"$bindir/warp-cc" "${flags[@]}" -o "$work/$name.img" "$exdir/$name.w2"
ins=()
for f in "$exdir/$name".*; do
    arr=${f##*.}
    case "$arr" in w2|expected|warp-error*) continue ;; esac
    ins+=(--in "$arr=$f")
done
set +e
"$bindir/warp-sim" "$work/$name.img" "${ins[@]}" --stats >"$work/out" 2>"$work/stats"
rc=$?
set -e
cat "$work/stats"
if [ $rc -ne 0 ]; then
    echo "FAIL: warp-sim exited $rc for $name with flags: $*"
    cat "$work/out"
    exit 1
fi
ref_args=()
for f in "$exdir/$name".*; do
    case "${f##*.}" in w2|expected|warp-error*) ;; *) ref_args+=("${f##*.}=$f") ;; esac
done
"$ref" "${ref_args[@]}" >"$work/ref"
if ! diff -u "$work/ref" "$work/out" >"$work/diff"; then
    echo "FAIL: $name with flags $* differs from the host reference:"
    head -40 "$work/diff"
    exit 1
fi
grep -q '^cycles: [0-9]' "$work/stats" || { echo "FAIL: --stats printed no cycle count"; exit 1; }
echo "PASS: $name $* ($(wc -l <"$work/out") results equal to the host reference; $(grep '^cycles:' "$work/stats"))"
