#!/usr/bin/env bash
# Compiles examples/NAME.w2 and runs it on the simulated array, feeding each host
# `in` array from examples/NAME.ARRAY; prints the `out` arrays and, on stderr, the
# cycle count and per-cell figures.
#   scripts/run-example.sh NAME [warp-cc flags, default -O2]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: run-example.sh NAME [warp-cc flags]}
shift
flags=("$@")
[ ${#flags[@]} -eq 0 ] && flags=(-O2)
img=$(mktemp --suffix=.img)
trap 'rm -f "$img"' EXIT
"$root/build/bin/warp-cc" "${flags[@]}" -o "$img" "$root/examples/$name.w2"
ins=()
for f in "$root/examples/$name".*; do
    case "${f##*.}" in w2|expected|warp-error) ;; *) ins+=(--in "${f##*.}=$f") ;; esac
done
"$root/build/bin/warp-sim" "$img" "${ins[@]}" --stats
