#!/usr/bin/env bash
# Refactors of the toolchain must not change what it produces: this compiles every
# example, conformance program, kernel and application to assembly, an object and
# an image on both models at -O0..-O3 and saves the outputs (with each run's exit
# status and diagnostics), or compares them with a saved set.
#   same-output.sh save    BINDIR DIR   # e.g. with a build of main
#   same-output.sh compare BINDIR DIR   # exit 1 and name each file that differs
set -uo pipefail
mode=${1:-} bindir=${2:-} dir=${3:-}
case "$mode" in save|compare) ;; *) echo "usage: $0 save|compare BINDIR DIR" >&2; exit 2 ;; esac
[ -x "$bindir/warp-cc" ] || { echo "$0: no warp-cc in $bindir" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
if [ $mode = save ]; then out=$dir; rm -rf "$out"; else out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
mkdir -p "$out"
n=0
for f in "$src"/examples/*.w2 "$src"/tests/conformance/*.w2 "$src"/bench/kernels/*.w2 "$src"/bench/apps/*.w2; do
    rel=${f#"$src"/}
    tag=${rel//\//_}
    tag=${tag%.w2}
    for cpu in warp iwarp; do
        for opt in O0 O1 O2 O3; do
            base="$out/$tag.$cpu.$opt"
            for kind in s o img; do
                case $kind in s) flag=(-S) ;; o) flag=(-c) ;; img) flag=() ;; esac
                "$bindir/warp-cc" -mcpu=$cpu -$opt "${flag[@]}" -o "$base.$kind" "$f" >"$base.$kind.log" 2>&1
                echo "exit $?" >>"$base.$kind.log"
                # diagnostics name the source by the path given: make them independent of the tree
                sed -i "s|$src/||g" "$base.$kind.log"
                n=$((n + 1))
            done
        done
    done
done
if [ $mode = save ]; then echo "$n compilations saved in $out"; exit 0; fi
# one diff, not a cmp per file: the machine is shared and forks are dear
diff -rq "$out" "$dir" | sed "s|$out|new|; s|$dir|saved|" >"$out.diffs"
bad=$(wc -l <"$out.diffs")
cat "$out.diffs"
rm -f "$out.diffs"
echo "$n compilations, $bad files differ from $dir"
[ "$bad" = 0 ]
