#!/usr/bin/env bash
# Bad input to any program: exit status 1, a message naming the file and the fault,
# and no output written (a file an earlier run left stays as it was).
set -uo pipefail
bindir=$1 exdir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail=0

# expect STATUS PATTERN OUTPUT_FILE -- COMMAND...: the command exits STATUS, its stderr
# matches PATTERN (grep -E), and OUTPUT_FILE (if not "-") was not written: it does not
# exist afterwards, or still holds "old".
expect() {
    local status=$1 pattern=$2 out=$3
    shift 4
    "$@" >stdout 2>stderr
    local rc=$?
    if [ $rc -ne "$status" ]; then
        echo "FAIL: '$*' exited $rc, expected $status"; cat stderr; fail=1; return
    fi
    if ! grep -Eq -- "$pattern" stderr; then
        echo "FAIL: '$*' said:"; cat stderr; echo "  expected /$pattern/"; fail=1; return
    fi
    if [ "$out" != - ] && [ -e "$out" ] && [ "$(cat "$out")" != old ]; then
        echo "FAIL: '$*' wrote $out"; fail=1; return
    fi
    echo "ok: $* -> $rc: $(head -1 stderr)"
}

printf 'module m (a in)\nfloat a[4];\ncellprogram (c : 0 : 1)\nbegin\n  x := 1;\nend\n' >undeclared.w2
printf 'module m (a in\n' >cut.w2
printf '\x7fELF garbage' >garbage.o
printf 'main:\n        fadd r1, r2\n' >bad.s
printf 'main:\n        frobnicate r1\n' >badop.s
head -c 100 "$exdir/polynomial.data" >short.data
printf '1 2 x 4\n' >nonnum.data

"$bindir/warp-cc" -O2 -c -o good.o "$exdir/polynomial.w2" || { echo "FAIL: cannot build good.o"; exit 1; }
"$bindir/warp-cc" -O2 -o good.img "$exdir/polynomial.w2" || { echo "FAIL: cannot build good.img"; exit 1; }
head -c 200 good.o >truncated.o
head -c 300 good.img >truncated.img

expect 1 'missing\.w2: .*No such file' a.out -- "$bindir/warp-cc" missing.w2
expect 1 'undeclared\.w2:5:3: error: .*x' a.out -- "$bindir/warp-cc" undeclared.w2
expect 1 'undeclared\.w2:5:3: error' undeclared.s -- "$bindir/warp-cc" -S undeclared.w2
expect 1 'cut\.w2:[0-9]+:[0-9]+: error' cut.o -- "$bindir/warp-cc" -c cut.w2
expect 1 "unknown option '-frobnicate'" - -- "$bindir/warp-cc" -frobnicate x.w2
expect 1 "unknown -mcpu 'pdp11'" - -- "$bindir/warp-cc" -mcpu=pdp11 x.w2
expect 1 'notes\.txt: unknown file type' a.out -- "$bindir/warp-cc" notes.txt
expect 1 'bad\.s:2:[0-9]+: error' bad.o -- "$bindir/warp-as" -o bad.o bad.s
expect 1 "badop\.s:2:[0-9]+: error: .*frobnicate" badop.o -- "$bindir/warp-as" -o badop.o badop.s
expect 1 'missing\.s' missing.o -- "$bindir/warp-as" -o missing.o missing.s
expect 1 'garbage\.o' out.img -- "$bindir/warp-ld" -o out.img garbage.o
expect 1 'truncated\.o' out.img -- "$bindir/warp-ld" -o out.img truncated.o
expect 1 'good\.o.*main|main.*good\.o|multiple|duplicate' out.img -- "$bindir/warp-ld" -o out.img good.o good.o
expect 1 'garbage\.o' - -- "$bindir/warp-sim" garbage.o
expect 1 'truncated\.img' - -- "$bindir/warp-sim" truncated.img
expect 1 "data" - -- "$bindir/warp-sim" good.img --in coeffs="$exdir/polynomial.coeffs"
expect 1 "data.*short\.data|short\.data.*data" - -- "$bindir/warp-sim" good.img --in data=short.data --in coeffs="$exdir/polynomial.coeffs"
expect 1 "nonnum\.data" - -- "$bindir/warp-sim" good.img --in data=nonnum.data --in coeffs="$exdir/polynomial.coeffs"
expect 1 "nodir/r\.txt" nodir/r.txt -- "$bindir/warp-sim" good.img --in data="$exdir/polynomial.data" --in coeffs="$exdir/polynomial.coeffs" --out results=nodir/r.txt
expect 1 "usage|unknown option" - -- "$bindir/warp-sim" --bogus

# A failed run leaves the file an earlier run left as it was: it writes nothing,
# and it never removes a file it did not create.
for stale in stale.img stale.s stale.o; do echo old >"$stale"; done
expect 1 'cut\.w2:[0-9]+:[0-9]+: error' stale.img -- "$bindir/warp-cc" -o stale.img cut.w2
expect 1 'cut\.w2:[0-9]+:[0-9]+: error' stale.s -- "$bindir/warp-cc" -S -o stale.s cut.w2
expect 1 'badop\.s:2:[0-9]+: error' stale.o -- "$bindir/warp-as" -o stale.o badop.s
echo old >stale.img
expect 1 'garbage\.o' stale.img -- "$bindir/warp-ld" -o stale.img garbage.o
echo old >stale.txt
expect 1 'short\.data' stale.txt -- "$bindir/warp-sim" good.img --in data=short.data --in coeffs="$exdir/polynomial.coeffs" --out results=stale.txt
for stale in stale.img stale.s stale.o stale.txt; do
    [ "$(cat "$stale" 2>/dev/null)" = old ] || { echo "FAIL: a failed run removed or changed $stale"; fail=1; }
done

[ $fail -eq 0 ] && echo "PASS: every bad input exits 1 with a message naming the file, writing no output"
exit $fail
