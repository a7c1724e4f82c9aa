#!/usr/bin/env python3
"""Seed 003's experiment (Tables 1 to 3): the torus, butterfly and all-to-all
patterns on the 64-cell iWarp (an 8x8 torus), messages of 32, 256, 2K and 16K words,
by message passing and by phased connection sets (ConSet).

Message passing: a W2 program per pattern and size (sendmsg and receivemsg,
docs/w2.md section 8.3), compiled with warp-cc -O2 -mcpu=iwarp; each cell sends one
message of K words to each of its partners and receives one from each.
ConSet: warp-conset partitions, routes and schedules the pattern (conset/), and
runtime/conset.s runs the plan on the cells: a context switch before each phase,
then every connection streams its K words by spools (docs/design.md, section 12).
There are no W2 statements for connection sets yet, so that side is a few lines of
assembly calling the runtime.

Both run on warp-sim --topology torus:8x8 (ConSet with --channels 3,1, the plan's
three channels a bus); the figure is the run's clock count, every overhead being
instructions the cells executed. Prints one line per pattern and size,

    PATTERN k=K conset=CLOCKS msgpass=CLOCKS paper: conset=C msgpass=M

and then how far each is from the paper's measured clocks.

    python3 bench/seed003.py [--build DIR] [--sizes 32,256] [--patterns torus,...] [--keep DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Seed 003, Tables 1 to 3: measured clocks, (ConSet, message passing).
PAPER = {
    "torus": {32: (1168, 3760), 256: (2984, 5720), 2048: (17408, 20012), 16384: (132768, 135224)},
    "butterfly": {32: (2448, 6208), 256: (6952, 10792), 2048: (43182, 48320), 16384: (332848, 343192)},
    "alltoall": {32: (54112, 120960), 256: (184544, 274136), 2048: (1258616, 1358632),
                 16384: (9973024, 11210048)},
}

# The partners of cell (x, y) in W2, into p[0 .. np-1]: the torus's four neighbours;
# the six hypercube neighbours of the Gray-code mapping (seed 003, section 5.1.2:
# node = gray(x) + 8 gray(y), one bit flipped, decoded back to a cell); or all 63
# others, each cell in its own order (the paper sent them in random order).
PARTNERS = {
    "torus": ("4", """
  p[0] := y * 8 + (x + 1) mod 8;
  p[1] := ((y + 1) mod 8) * 8 + x;
  p[2] := y * 8 + (x + 7) mod 8;
  p[3] := ((y + 7) mod 8) * 8 + x"""),
    "butterfly": ("6", """
  for j := 0 to 5 do
  begin
    if j < 3 then v := x else v := y;
    b0 := v mod 2; b1 := (v / 2) mod 2; b2 := v / 4;
    g0 := (b0 + b1) mod 2; g1 := (b1 + b2) mod 2; g2 := b2;
    if j mod 3 = 0 then g0 := 1 - g0;
    if j mod 3 = 1 then g1 := 1 - g1;
    if j mod 3 = 2 then g2 := 1 - g2;
    b2 := g2; b1 := (g1 + b2) mod 2; b0 := (g0 + b1) mod 2;
    v := b0 + 2 * b1 + 4 * b2;
    if j < 3 then p[j] := y * 8 + v else p[j] := v * 8 + x
  end"""),
    "alltoall": ("63", """
  for j := 0 to 62 do
    p[j] := (cid + (37 * j + 11 * cid) mod 63 + 1) mod 64"""),
}


def msgpass_program(pattern, k):
    n, body = PARTNERS[pattern]
    return f"""/* seed 003's {pattern} pattern by message passing, {k} words a message */
module {pattern}{k} (unused out)
int unused;
cellprogram (cid : 0 : 63)
begin
  int sbuf[{k}], rbuf[{k}], p[63], j, x, y, v, b0, b1, b2, g0, g1, g2, src, len;
  x := cid mod 8;
  y := cid / 8;{body};
  for j := 0 to {n} - 1 do
    sendmsg (p[j], sbuf[0], {k});
  for j := 0 to {n} - 1 do
    receivemsg (rbuf[0], {k}, src, len)
end
"""


# One buffer sends and receives (its contents do not matter here): with 16K words
# and the all-to-all plan (about 170 KB in every cell), two would not fit.
CONSET_DRIVER = """; seed 003's pattern by ConSet: run the plan, every connection {k} words
        .model  iwarp
        .cells  0, 63
        .data
buf:    .zero   {bytes}
        .text
        .globl  main
main:   mv r1, buf | mv r2, buf
        mv r3, {k} | mv r4, 0
        call cs_run
        halt
"""


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"seed003: {what} failed ({p.returncode}):\n{p.stdout}{p.stderr}")
    return p


def clocks(stats):
    m = re.search(r"^cycles: (\d+)", stats, re.M)
    if not m:
        sys.exit("seed003: warp-sim printed no cycle count")
    return int(m.group(1))


def measure_msgpass(bindir, tmp, pattern, k):
    src = os.path.join(tmp, f"{pattern}{k}.w2")
    img = os.path.join(tmp, f"{pattern}{k}.mp.img")
    with open(src, "w") as f:
        f.write(msgpass_program(pattern, k))
    run([os.path.join(bindir, "warp-cc"), "-mcpu=iwarp", "-O2", "-o", img, src], "warp-cc " + src)
    p = run([os.path.join(bindir, "warp-sim"), img, "--topology", "torus:8x8", "--channels", "3,1", "--stats", "--out",
             "unused=" + os.path.join(tmp, "unused.txt")], "warp-sim " + img)
    return clocks(p.stderr)


def measure_conset(bindir, tmp, pattern, k):
    plan = os.path.join(tmp, f"{pattern}{k}.plan.s")
    p = run([os.path.join(bindir, "warp-conset"), "--torus", "8x8", "--pattern", pattern, "--words", str(k),
             "-o", plan], "warp-conset")
    phases = int(re.search(r"(\d+) phases", p.stderr).group(1))
    drv = os.path.join(tmp, f"{pattern}{k}.drv.s")
    with open(drv, "w") as f:
        f.write(CONSET_DRIVER.format(k=k, bytes=4 * k))
    objs = []
    for s in (os.path.join(ROOT, "runtime", "conset.s"), plan, drv):
        o = os.path.join(tmp, os.path.basename(s) + f".{pattern}{k}.o")
        run([os.path.join(bindir, "warp-as"), "-o", o, s], "warp-as " + s)
        objs.append(o)
    img = os.path.join(tmp, f"{pattern}{k}.cs.img")
    run([os.path.join(bindir, "warp-ld"), "-e", "main", "-o", img] + objs, "warp-ld")
    p = run([os.path.join(bindir, "warp-sim"), img, "--topology", "torus:8x8", "--channels", "3,1", "--stats"],
            "warp-sim " + img)
    return clocks(p.stderr), phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sizes", default="32,256,2048,16384")
    ap.add_argument("--patterns", default="torus,butterfly,alltoall")
    ap.add_argument("--keep", help="write the programs, plans and images here")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    sizes = [int(s) for s in args.sizes.split(",")]
    patterns = args.patterns.split(",")
    for pat in patterns:
        if pat not in PAPER:
            sys.exit(f"seed003: unknown pattern '{pat}'")
    tmp = args.keep or tempfile.mkdtemp(prefix="seed003-")
    os.makedirs(tmp, exist_ok=True)
    rows = []
    for pat in patterns:
        for k in sizes:
            cs, phases = measure_conset(bindir, tmp, pat, k)
            mp = measure_msgpass(bindir, tmp, pat, k)
            pcs, pmp = PAPER[pat].get(k, (None, None))
            paper = f" paper: conset={pcs} msgpass={pmp}" if pcs else ""
            print(f"{pat} k={k} conset={cs} msgpass={mp}{paper}", flush=True)
            rows.append((pat, k, cs, mp, pcs, pmp, phases))
    print()
    print(f"{'pattern':<10} {'k':>6} {'phases':>6} {'conset/paper':>13} {'msgpass/paper':>14} {'conset ahead':>13}")
    worst = 0.0
    for pat, k, cs, mp, pcs, pmp, phases in rows:
        if pcs:
            worst = max(worst, cs / pcs, mp / pmp)
        rc = f"{cs / pcs:.2f}" if pcs else "-"
        rm = f"{mp / pmp:.2f}" if pmp else "-"
        print(f"{pat:<10} {k:>6} {phases:>6} {rc:>13} {rm:>14} {'yes' if cs < mp else 'NO':>13}")
    if worst:
        print(f"slowest against the paper: {worst:.2f} of its clocks (1.25 allowed)")
    if not args.keep:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
