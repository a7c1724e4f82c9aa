#!/usr/bin/env python3
"""No two allocated sections of an ELF file share an address.

usage: no_overlap.py FILE...: reads each file's section headers through
`readelf -SW` and prints "OK name: N allocated sections", or each pair of
allocated sections whose address ranges overlap (gdb's "unexpected overlap
between sections"), and exits 1 if any."""
import os
import re
import subprocess
import sys

ROW = re.compile(r"\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]{8})\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)")


def main():
    bad = 0
    for path in sys.argv[1:]:
        out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True).stdout
        alloc = []
        for m in ROW.finditer(out):
            name, addr, size, flags = m.group(1), int(m.group(2), 16), int(m.group(3), 16), m.group(4)
            if "A" in flags and size:
                alloc.append((addr, addr + size, name))
        alloc.sort()
        clashes = ["%s [0x%x, 0x%x) and %s [0x%x, 0x%x)" % (a[2], a[0], a[1], b[2], b[0], b[1])
                   for a, b in zip(alloc, alloc[1:]) if b[0] < a[1]]
        name = os.path.basename(path)
        if clashes:
            bad = 1
            for c in clashes:
                print("OVERLAP %s: %s" % (name, c))
        else:
            print("OK %s: %d allocated sections" % (name, len(alloc)))
    return bad


if __name__ == "__main__":
    sys.exit(main())
