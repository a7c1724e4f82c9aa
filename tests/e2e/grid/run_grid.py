#!/usr/bin/env python3
"""Runs a 2-D W2 program on the iWarp torus and compares every output with a host
reference computed here.

  run_grid.py BINDIR PROGRAM WxH [--origin X0,Y0] [--seed N] [-- WARP_CC_FLAGS...]

PROGRAM is matmul or rowcol (PROGRAM.w2t beside this script, written for any size:
{W}, {H}, {X0}, {X1}, ... are filled in). warp-sim gets no --topology: the image
says which torus it runs on. Exit 0 when every number agrees."""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def fill(template, w, h, x0, y0, k):
    sizes = {"W": w, "H": h, "K": k, "X0": x0, "X1": x0 + w - 1, "Y0": y0, "Y1": y0 + h - 1,
             "XN": w - 1, "YN": h - 1, "KN": k - 1}
    return template.format(**sizes)


def matmul(rng, w, h, k):
    a = [[rng.randint(-9, 9) for _ in range(k)] for _ in range(h)]
    b = [[rng.randint(-9, 9) for _ in range(w)] for _ in range(k)]
    # Small integers: every product and partial sum is exact in single precision,
    # so the order of the additions does not matter.
    c = [[sum(a[i][t] * b[t][j] for t in range(k)) for j in range(w)] for i in range(h)]
    return {"a": a, "b": b}, {"c": c}


def rowcol(rng, w, h, k):
    m = [[rng.randint(-99, 99) for _ in range(w)] for _ in range(h)]
    p = [[rng.randint(-99, 99) for _ in range(w)] for _ in range(h)]
    base = rng.randint(-50, 50)
    out = {
        "rowsum": [sum(row) for row in m],
        "rowdot": [base + sum(v * (x + 1) for x, v in enumerate(row)) for row in m],
        "colsum": [sum(p[y][x] for y in range(h)) for x in range(w)],
        "colmax": [max([base - 1000000] + [p[y][x] for y in range(h)]) for x in range(w)],
    }
    return {"m": m, "p": p, "base": base}, out


PROGRAMS = {"matmul": matmul, "rowcol": rowcol}


def flat(v):
    if isinstance(v, list):
        return [x for e in v for x in flat(e)]
    return [v]


def main():
    args = sys.argv[1:]
    flags = []
    if "--" in args:
        flags = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    bindir, prog, size = args[0], args[1], args[2]
    x0 = y0 = 0
    seed = 1
    rest = args[3:]
    while rest:
        if rest[0] == "--origin":
            x0, y0 = (int(v) for v in rest[1].split(","))
        elif rest[0] == "--seed":
            seed = int(rest[1])
        else:
            sys.exit("run_grid.py: unknown argument " + rest[0])
        rest = rest[2:]
    w, h = (int(v) for v in size.split("x"))
    k = w
    rng = random.Random(seed * 1000003 + w * 101 + h)
    ins, want = PROGRAMS[prog](rng, w, h, k)
    with open(os.path.join(HERE, prog + ".w2t")) as f:
        src = fill(f.read(), w, h, x0, y0, k)
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, prog + ".w2")
        with open(path, "w") as f:
            f.write(src)
        img = os.path.join(work, prog + ".img")
        cc = [os.path.join(bindir, "warp-cc"), "-mcpu=iwarp"] + flags + ["-o", img, path]
        r = subprocess.run(cc, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stdout.write(r.stdout + r.stderr)
            sys.exit("FAIL: warp-cc %s exited %d" % (" ".join(cc[1:]), r.returncode))
        sim = [os.path.join(bindir, "warp-sim"), img, "--stats"]
        for name, v in ins.items():
            fn = os.path.join(work, name + ".in")
            with open(fn, "w") as f:
                f.write(" ".join(str(x) for x in flat(v)) + "\n")
            sim += ["--in", "%s=%s" % (name, fn)]
        for name in want:
            sim += ["--out", "%s=%s" % (name, os.path.join(work, name + ".out"))]
        r = subprocess.run(sim, capture_output=True, text=True)
        print(r.stderr.splitlines()[0] if r.stderr else "")
        if r.returncode != 0:
            sys.stdout.write(r.stdout + r.stderr)
            sys.exit("FAIL: warp-sim exited %d for %s %s %s" % (r.returncode, prog, size, " ".join(flags)))
        bad = 0
        for name, v in want.items():
            with open(os.path.join(work, name + ".out")) as f:
                got = f.read().split()
            exp = ["%.9g" % x if prog == "matmul" else str(x) for x in flat(v)]
            if got != exp:
                bad += 1
                diffs = [i for i in range(max(len(got), len(exp)))
                         if i >= len(got) or i >= len(exp) or got[i] != exp[i]]
                print("FAIL: %s %s: '%s' differs from the reference at %d of %d elements, first [%d]: %s, want %s"
                      % (prog, size, name, len(diffs), len(exp), diffs[0],
                         got[diffs[0]] if diffs[0] < len(got) else "nothing",
                         exp[diffs[0]] if diffs[0] < len(exp) else "nothing"))
        if bad:
            sys.exit(1)
    print("PASS: %s on a %s torus (%s), every output as the reference" % (prog, size, " ".join(flags) or "-O0"))


if __name__ == "__main__":
    main()
