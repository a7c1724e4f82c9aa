#!/usr/bin/env python3
"""info stats FROM TO gives the figures of those clocks only.

usage: stats_window.py WARP_DBG IMAGE [ARG...] [--stalls]: runs IMAGE under the debugger twice,
first to its end (the run's totals, `info stats`), then asking for windows: clocks 0
to the end must give the totals line for line; two windows that meet at a clock K
must add up, cell by cell, to the window over both (issues and stalls); no window
issues more than its clocks; a middle window of one cell is that cell's line of the
all-cells window; and a window stopped mid-run at clock M must give the live totals
at M. With --stalls, some cell must stall. Prints OK and the cycle count, or what failed, exiting 1."""
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"cell (\d+) \(cid -?\d+\): issued (\d+), stalls (\d+) \(queue (\d+), unit (\d+)\)(.*)")


def dbg(argv, commands):
    with tempfile.NamedTemporaryFile("w", suffix=".gdb") as f:
        f.write("\n".join(commands) + "\n")
        f.flush()
        r = subprocess.run([argv[0], "-batch", "-x", f.name] + argv[1:], capture_output=True, text=True)
    return r.stdout + r.stderr


def blocks(text):
    """Each stats block: its header and {cell: (issued, stalls, queue, unit, rest)}."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("cycles: ") or line.startswith("clocks "):
            cur = (line, {})
            out.append(cur)
            continue
        m = LINE.match(line)
        if m and cur is not None:
            cur[1][int(m.group(1))] = tuple(int(x) for x in m.groups()[1:5]) + (m.group(6),)
    return out


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


def main():
    argv = [a for a in sys.argv[1:] if a != "--stalls"]
    want_stalls = "--stalls" in sys.argv[1:]
    whole = blocks(dbg(argv, ["run", "info stats"]))
    if len(whole) != 1 or not whole[0][1]:
        fail("no totals: %r" % whole)
    n = int(whole[0][0].split()[1])
    totals = whole[0][1]
    k = n // 2
    cell = max(totals) // 2
    text = dbg(argv, ["run", "info stats 0 %d" % n, "info stats 0 %d" % k, "info stats %d %d" % (k, n),
                      "info stats %d %d %d" % (k // 2, k, cell)])
    got = blocks(text)
    if len(got) != 4:
        fail("expected four windows:\n" + text)
    full, first, second, one = (g[1] for g in got)
    if got[0][0] != "clocks 0 to %d: %d" % (n, n):
        fail("header %r" % got[0][0])
    if full != totals:
        fail("clocks 0 to the end differ from the totals:\n%r\n%r" % (full, totals))
    middle = blocks(dbg(argv, ["run", "info stats %d %d" % (k // 2, k)]))[0][1]
    if set(one) != {cell} or one[cell] != middle[cell]:
        fail("cell %d alone %r, among all %r" % (cell, one, middle.get(cell)))
    for c, t in totals.items():
        for i in range(4):
            if first[c][i] + second[c][i] != t[i]:
                fail("cell %d: windows 0-%d and %d-%d add to %d, the run %d" % (c, k, k, n,
                                                                                 first[c][i] + second[c][i], t[i]))
        if first[c][0] > k or second[c][0] > n - k:
            fail("cell %d issues more than its window's clocks" % c)
    if not any(first[c][0] and second[c][0] for c in totals):
        fail("no cell issues in both halves: the test shows nothing")
    if want_stalls and not any(first[c][1] or second[c][1] for c in totals):
        fail("no cell stalls: the stall counts are not tested")
    # Mid-run: the replay of the clocks run so far is the live figures.
    m = max(1, k // 3)
    text = dbg(argv, ["start", "cycle %d" % m, "info stats"])
    live = blocks(text)
    clock = int(live[0][0].split()[1])
    text = dbg(argv, ["start", "cycle %d" % m, "info stats 0 %d" % clock, "info stats 0 %d" % (clock + 1)])
    replay = blocks(text)
    if replay[0][1] != live[0][1]:
        fail("at clock %d the replay %r differs from the run %r" % (clock, replay[0][1], live[0][1]))
    if "Clock %d has not run yet: the run is at clock %d." % (clock + 1, clock) not in text:
        fail("a window past the run's clock is not refused:\n" + text)
    print("OK cycles %d, windows 0-%d-%d and %d-%d" % (n, k, n, k // 2, k))


if __name__ == "__main__":
    main()
