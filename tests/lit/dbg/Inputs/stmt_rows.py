#!/usr/bin/env python3
"""Every statement of a W2 program has a row in its -O0 line table.

usage: stmt_rows.py WARP_CC LLVM_DWARFDUMP SOURCE...: for each source, the lines
that its -O0 LLVM IR gives to instructions (the frontend's statement locations)
must each have a row in the .debug_line of its -O0 -g image. Prints one line per
source ("OK name: N lines") or the lines that have none, and exits 1 if any."""
import re
import subprocess
import sys
import tempfile
import os


def main():
    cc, dump, sources = sys.argv[1], sys.argv[2], sys.argv[3:]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for src in sources:
            name = os.path.basename(src)
            ll, img = os.path.join(tmp, "x.ll"), os.path.join(tmp, "x.img")
            for target in ([], ["-mcpu=iwarp"]):
                r1 = subprocess.run([cc, "-O0", "-g", "-emit-llvm", "-S", "-o", ll, src] + target, capture_output=True)
                r2 = subprocess.run([cc, "-O0", "-g", "-o", img, src] + target, capture_output=True)
                if not r1.returncode and not r2.returncode:
                    break
            else:
                print("FAIL %s: does not compile" % name)
                bad = 1
                continue
            text = open(ll).read()
            locs = dict(re.findall(r"^!(\d+) = !DILocation\(line: (\d+)", text, re.M))
            want = set()
            for line in text.splitlines():
                s = line.strip()
                # instructions with a location; allocas carry the declaration's
                if s.startswith("#dbg_") or " alloca " in s or not s.startswith(("%", "store", "call", "br", "ret")):
                    continue
                m = re.search(r"!dbg !(\d+)", s)
                if m and m.group(1) in locs:
                    want.add(int(locs[m.group(1)]))
            out = subprocess.run([dump, "--debug-line", img], capture_output=True, text=True).stdout
            have = set(int(m) for m in re.findall(r"^0x[0-9a-f]+\s+(\d+)\s", out, re.M))
            missing = sorted(want - have)
            if missing:
                bad = 1
                print("MISSING %s: lines %s have no row" % (name, " ".join(map(str, missing))))
            else:
                print("OK %s: %d lines" % (name, len(want)))
    sys.exit(bad)


main()
