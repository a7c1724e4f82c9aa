#!/usr/bin/env python3
"""Seed 003's experiment (Tables 1 to 3): the torus, butterfly and all-to-all
patterns on the 64-cell iWarp (an 8x8 torus), messages of 32, 256, 2K and 16K words,
by message passing and by phased connection sets (ConSet).

Both sides are W2 programs compiled with warp-cc -O2 -mcpu=iwarp, each cell sending
K words to each of its partners and receiving as many.
Message passing: sendmsg and receivemsg (docs/w2.md, section 8.4).
ConSet: the pattern declared as a phase of connections, a sendcon and a receivecon
posted on each, and one instantiate (section 8.5): the compiler partitions,
routes and schedules the connections (conset/), and runtime/conset.s runs the plan
on the cells, a context switch before each phase (docs/design.md, section 12).

Both run on warp-sim --topology torus:8x8 --channels 3,1 (the plan's three
channels a bus); the figure is the run's clock count, every overhead being
instructions the cells executed. Prints one line per pattern and size,

    PATTERN k=K conset=CLOCKS msgpass=CLOCKS paper: conset=C msgpass=M

and then how far each is from the paper's measured clocks, with the phases of
each ConSet plan (warp-conset on the same connections in the same order).

    python3 bench/seed003.py [--build DIR] [--sizes 32,256] [--patterns torus,...]
                             [--models conset,msgpass] [--keep DIR]

(--models conset measures one side only: the other's figures print as 0.)
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


# The patterns as connection sets: each connection a name, an index range or
# none, and its destination from the cell's cid (x = cid mod 8, y = cid / 8); the
# butterfly's six are the Gray-code neighbours of PARTNERS written out per bit.
CONSETS = {
    "torus": [("e", None, "(cid / 8) * 8 + (cid + 1) mod 8"),
              ("n", None, "((cid / 8 + 1) mod 8) * 8 + cid mod 8"),
              ("w", None, "(cid / 8) * 8 + (cid + 7) mod 8"),
              ("s", None, "((cid / 8 + 7) mod 8) * 8 + cid mod 8")],
    "butterfly": [("x0", None, "(cid / 8) * 8 + cid mod 8 + 1 - 2 * (cid mod 2)"),
                  ("x1", None, "(cid / 8) * 8 + 4 * (cid mod 8 / 4) + 3 - cid mod 4"),
                  ("x2", None, "(cid / 8) * 8 + 7 - cid mod 8"),
                  ("y0", None, "(cid / 8 + 1 - 2 * (cid / 8 mod 2)) * 8 + cid mod 8"),
                  ("y1", None, "(4 * (cid / 32) + 3 - cid / 8 mod 4) * 8 + cid mod 8"),
                  ("y2", None, "(7 - cid / 8) * 8 + cid mod 8")],
    "alltoall": [("all", (1, 63), "(cid + j) mod 64")],
}


# One buffer sends and receives (its contents do not matter here): with 16K words
# and the all-to-all plan (about 100 KB in every cell), two would not fit.
def conset_program(pattern, k):
    conns, posts = [], []
    for name, rng, dst in CONSETS[pattern]:
        if rng:
            conns.append(f"{name}[j : {rng[0]} : {rng[1]}] to {dst}")
            posts.append(f"  for j := {rng[0]} to {rng[1]} do\n  begin\n    sendcon ({name}[j], buf[0], {k});\n"
                         f"    receivecon ({name}[j], buf[0], {k})\n  end;")
        else:
            conns.append(f"{name} to {dst}")
            posts.append(f"  sendcon ({name}, buf[0], {k});\n  receivecon ({name}, buf[0], {k});")
    sep = ",\n        "
    body = "\n".join(posts)
    return f"""/* seed 003's {pattern} pattern by ConSet, {k} words a connection */
module {pattern}{k}cs (unused out)
int unused;
cellprogram (cid : 0 : 63)
begin
  phase pattern : {sep.join(conns)};
  int buf[{k}], j;
{body}
  instantiate pattern
end
"""


def conset_connections(pattern):
    """The connections in the order warp-cc gives them to the compiler:
    connection by connection, index by index, cell by cell."""
    out = []
    for name, rng, dst in CONSETS[pattern]:
        expr = dst.replace("mod", "%").replace("/", "//")
        for j in (range(rng[0], rng[1] + 1) if rng else [0]):
            for cid in range(64):
                out.append((cid, eval(expr, {"cid": cid, "j": j})))
    return out


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
    src = os.path.join(tmp, f"{pattern}{k}.cs.w2")
    img = os.path.join(tmp, f"{pattern}{k}.cs.img")
    with open(src, "w") as f:
        f.write(conset_program(pattern, k))
    run([os.path.join(bindir, "warp-cc"), "-mcpu=iwarp", "-O2", "-o", img, src], "warp-cc " + src)
    p = run([os.path.join(bindir, "warp-sim"), img, "--topology", "torus:8x8", "--channels", "3,1", "--stats", "--out",
             "unused=" + os.path.join(tmp, "unused.txt")], "warp-sim " + img)
    conns = os.path.join(tmp, f"{pattern}.conns")
    with open(conns, "w") as f:
        f.writelines(f"{a} {b}\n" for a, b in conset_connections(pattern))
    q = run([os.path.join(bindir, "warp-conset"), "--torus", "8x8", "--conns", conns, "--words", str(k), "-o",
             os.path.join(tmp, f"{pattern}.plan.s")], "warp-conset")
    return clocks(p.stderr), int(re.search(r"(\d+) phases", q.stderr).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sizes", default="32,256,2048,16384")
    ap.add_argument("--patterns", default="torus,butterfly,alltoall")
    ap.add_argument("--models", default="conset,msgpass", help="measure these (the other prints as 0)")
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
            models = args.models.split(",")
            cs, phases = measure_conset(bindir, tmp, pat, k) if "conset" in models else (0, 0)
            mp = measure_msgpass(bindir, tmp, pat, k) if "msgpass" in models else 0
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
        if not cs or not mp:
            print(f"{pat:<10} {k:>6} {phases:>6} {cs / pcs if cs else 0:>13.2f} {mp / pmp if mp else 0:>14.2f} {'-':>13}")
            continue
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
