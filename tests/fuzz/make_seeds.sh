#!/usr/bin/env bash
# Seed corpora for the fuzz targets, made from the examples by the tools just
# built, so no binary seed is kept in git:
#   w2/   the W2 programs of examples/, bench/ and the lit suite
#   as/   the examples as assembly (-S) for both models at -O0 and -O2, crt0.s,
#         the lit suite's assembly files
#   obj/  the examples as objects (-c) for both models, -O2 and -O0 -g; crt0.o
#   img/  the examples linked for both models at -O0 and -O2, the lit
#         simulator programs linked
#   dbg/  the lit suite's debugger scripts; and beside the corpora,
#         dbg-polynomial.img (-O2 -g), the image fuzz_dbg debugs
# Every target named by a tests/fuzz/fuzz_NAME.c gets a directory, empty if
# nothing here makes seeds for it (its seeds are then in tests/fuzz/seeds/NAME).
#   make_seeds.sh BINDIR SRCDIR OUTDIR
set -euo pipefail
bindir=$(cd "$1" && pwd) src=$(cd "$2" && pwd) out=$(realpath -m "$3")
tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp"
for t in "$src"/tests/fuzz/fuzz_*.c; do
    t=${t##*/fuzz_}
    mkdir -p "$tmp/${t%.c}"
done

export WARP_CRT0=$bindir/../lib/warp/crt0.o
cc=$bindir/warp-cc

# A tool that fails on an example leaves that seed out and says so, but does not
# stop the build (call it as 'try ... || true'): the e2e and lit tests report
# the failure itself.
try() {
    "$@" >/dev/null 2>"$tmp/stderr" && return 0
    echo "make_seeds: warning: '$*' failed; its seed is left out:" >&2
    head -5 "$tmp/stderr" >&2
    return 1
}

for f in "$src"/examples/*.w2 "$src"/bench/*.w2 "$src"/tests/lit/*/*.w2; do
    [ -e "$f" ] || continue
    d=${f%/*}
    cp "$f" "$tmp/w2/${d##*/}-${f##*/}"
done

cp "$src/runtime/crt0.s" "$tmp/as/crt0.s"
cp "$WARP_CRT0" "$tmp/obj/crt0.o"
for f in "$src"/tests/lit/assembler/*.s "$src"/tests/lit/simulator/*.s; do
    [ -e "$f" ] || continue
    cp "$f" "$tmp/as/lit-${f##*/}"
done
for f in "$src"/tests/lit/simulator/*.s; do
    [ -e "$f" ] || continue
    b=${f##*/}
    try "$bindir/warp-as" -o "$tmp/lit.o" "$f" && try "$bindir/warp-ld" -e main -o "$tmp/img/lit-${b%.s}.img" "$tmp/lit.o" ||
        true
done
rm -f "$tmp/lit.o"

# From inside examples/, so the seeds name their sources alike in every checkout.
cd "$src/examples"
for f in *.w2; do
    b=${f%.w2}
    for cpu in warp iwarp; do
        for opt in O0 O2; do
            try "$cc" -mcpu=$cpu -$opt -S -o "$tmp/as/$b-$cpu-$opt.s" "$f" || true
            # Warp rejects programs whose I/O timing it cannot bound (collatz);
            # their image without flow control is still a fine seed.
            "$cc" -mcpu=$cpu -$opt -o "$tmp/img/$b-$cpu-$opt.img" "$f" 2>/dev/null ||
                try "$cc" -mcpu=$cpu -$opt -fno-flow-control -o "$tmp/img/$b-$cpu-$opt.img" "$f" || true
        done
        try "$cc" -mcpu=$cpu -O2 -c -o "$tmp/obj/$b-$cpu-O2.o" "$f" || true
        try "$cc" -mcpu=$cpu -O0 -g -c -o "$tmp/obj/$b-$cpu-O0g.o" "$f" || true
    done
done

if [ -d "$tmp/dbg" ]; then
    for f in "$src"/tests/lit/dbg/Inputs/*.gdb; do
        [ -e "$f" ] && cp "$f" "$tmp/dbg/"
    done
    try "$cc" -O2 -g -o "$tmp/dbg-polynomial.img" polynomial.w2 || true
    [ -e "$tmp/dbg-polynomial.img" ] && mv "$tmp/dbg-polynomial.img" "${out%/*}/dbg-polynomial.img"
fi

rm -f "$tmp/stderr"
rm -rf "$out"
mv "$tmp" "$out"
