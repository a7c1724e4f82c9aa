#!/usr/bin/env python3
"""The application suite: six W2 programs (bench/apps/*.w2) -- a streamed FFT,
2-D convolution, matrix multiply, a heat stencil, edit distance and a sort --
each with a host reference, compiled and run on both models.

    bench/apps.py [--build build] [-O2] [--model warp|iwarp]
        prints one table: per program and model, whether the results equal the
        host reference, the cycles, the busiest unit's bound (the operations the
        program really needs on its busiest unit, over that unit's peak rate, on its
        busiest cell: what no compiler could beat), their ratio, and each
        software-pipelined loop's II against its MII (and the bound behind it;
        '(x2)': a body unrolled twice before scheduling, the II for two iterations).
    bench/apps.py --check [--build build]
        checks every program's results against its reference at -O0..-O3, with
        software pipelining on and off, on both models (the ctest bench.apps),
        and that -O3 is never slower than -O2 nor pipelining than -fno-swp (a
        LEVELS line a program and model gives the cycles at -O1..-O3, pipelined
        and not); exit status 1 on any difference.
    bench/apps.py --fft-throughput [--build build]
        prints one line, 'cycles per transform: N', for the streamed 1024-point
        FFT on 10 Warp cells at -O2: the clocks that 4 more transforms add to a
        run, over 4 (the fill and drain of the pipeline of cells cancel).

Inputs come from fixed seeds, written to a temporary directory at each run.
References compute in single precision, one rounding an operation, in the order
the cells do. On Warp the bound counts only the program's own operations: host
feeds, host addresses and the loop control of pipelined loops with a known trip
count are the interface unit's (backend/iu.c, backend/swp_gen.c; -fno-iu keeps
them on the cells), and where what the cells still issue of them makes a unit
busier than the program's work the ratio shows it (see docs/apps.md)."""
import argparse
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

from kernels import slower  # the -O3 / -fno-swp comparison both suites make

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADIR = os.path.join(ROOT, "bench", "apps")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fmt(x):
    return "%d" % x if isinstance(x, int) else "%.9g" % x


def floats(rng, n, lo=-1.0, hi=1.0):
    return [f32(rng.uniform(lo, hi)) for _ in range(n)]


# ---- the FFT ----------------------------------------------------------------------

FFT_NT = 4


def fft_inputs(nt):
    rng = random.Random(16)
    xs = [(floats(rng, 1024), floats(rng, 1024)) for _ in range(nt)]
    # Cell 0 takes, each packet, the two points of one of its butterflies:
    # x[j] and x[j + 512] of transform t, packet 512 t + j.
    xre, xim = [], []
    for re, im in xs:
        for j in range(512):
            xre += [re[j], re[j + 512]]
            xim += [im[j], im[j + 512]]
    return {"xre": xre, "xim": xim,
            "wre": [f32(math.cos(2 * math.pi * m / 1024)) for m in range(512)],
            "wim": [f32(-math.sin(2 * math.pi * m / 1024)) for m in range(512)]}, xs


def fft_one(re, im, wre, wim):
    """Radix-2 decimation in frequency, stage s on cell s; results in the order
    the stages leave them (bit-reversed frequencies). Stage 9's twiddle is 1:
    the cell skips the product."""
    re, im = list(re), list(im)
    for s in range(10):
        h = 512 >> s
        for b in range(0, 1024, 2 * h):
            for j in range(h):
                i = b + j
                rr, ri, qr, qi = re[i], im[i], re[i + h], im[i + h]
                re[i], im[i] = f32(rr + qr), f32(ri + qi)
                dr, di = f32(rr - qr), f32(ri - qi)
                if s < 9:
                    wr, wi = wre[j << s], wim[j << s]
                    re[i + h] = f32(f32(dr * wr) - f32(di * wi))
                    im[i + h] = f32(f32(dr * wi) + f32(di * wr))
                else:
                    re[i + h], im[i + h] = dr, di
    return re, im


def fft_ref(ins, xs):
    yre, yim = [], []
    for re, im in xs:
        a, b = fft_one(re, im, ins["wre"], ins["wim"])
        yre += a
        yim += b
    return {"yre": yre, "yim": yim}


def fft_source(nt):
    """fft.w2 for nt transforms (the suite's is FFT_NT)."""
    src = open(os.path.join(ADIR, "fft.w2")).read()
    if nt == FFT_NT:
        return src
    subs = [("[4096]", "[%d]" % (1024 * nt)), ("[4][1024]", "[%d][1024]" % nt),
            ("to 2047 do", "to %d do" % (512 * nt - 1)), ("to 2559 do", "to %d do" % (512 * nt + 511)),
            ("for t := 0 to 3 do", "for t := 0 to %d do" % (nt - 1))]
    for a, b in subs:
        if a not in src:
            raise SystemExit("apps.py: bench/apps/fft.w2 no longer has '%s'" % a)
        src = src.replace(a, b)
    return src


# ---- the others -------------------------------------------------------------------

def conv2d_inputs():
    rng = random.Random(21)
    return {"img": floats(rng, 34 * 34, 0.0, 4.0), "w": floats(rng, 9)}


def conv2d_ref(d):
    p, w = d["img"], d["w"]
    res = []
    for y in range(32):
        for x in range(32):
            s = None
            for k in range(9):
                t = f32(w[k] * p[34 * (y + k // 3) + x + k % 3])
                s = t if s is None else f32(s + t)
            res.append(s)
    return {"res": res}


def matmul_inputs():
    rng = random.Random(22)
    return {"a": floats(rng, 1024), "b": floats(rng, 1024)}


def matmul_ref(d):
    a, b = d["a"], d["b"]
    c = []
    for i in range(32):
        row = [f32(a[32 * i] * b[j]) for j in range(32)]
        for k in range(1, 32):
            s = a[32 * i + k]
            row = [f32(row[j] + f32(s * b[32 * k + j])) for j in range(32)]
        c += row
    return {"c": c}


def stencil_inputs():
    rng = random.Random(23)
    return {"u": floats(rng, 1024, 0.0, 10.0)}


def stencil_ref(d):
    u = list(d["u"])
    for _ in range(10):
        v = []
        for i in range(1024):
            a = u[i - 1] if i > 0 else 0.0
            b = u[i]
            if i < 1023:
                v.append(f32(b + f32(0.25 * f32(f32(a + u[i + 1]) - f32(2.0 * b)))))
            else:
                v.append(f32(b + f32(0.25 * f32(a - f32(2.0 * b)))))
        u = v
    return {"v": u}


def editdist_inputs():
    rng = random.Random(24)
    a = [rng.randrange(4) for _ in range(64)]
    b = []
    for _ in range(16):
        s = list(a)
        for _ in range(rng.randrange(40)):
            s[rng.randrange(64)] = rng.randrange(4)
        b += s
    return {"a": a, "b": b}


def editdist_ref(d):
    a, out = d["a"], []
    for s in range(16):
        b = d["b"][64 * s:64 * s + 64]
        prev = list(range(65))
        for i in range(1, 65):
            cur = [i]
            for j in range(1, 65):
                cur.append(min(prev[j] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]), cur[j - 1] + 1))
            prev = cur
        out.append(prev[64])
    return {"d": out}


def sort_inputs():
    rng = random.Random(25)
    return {"x": floats(rng, 128, -100.0, 100.0)}


def sort_ref(d):
    return {"y": sorted(d["x"])}


# Operations a clock each unit class issues at its peak, per model: Warp's
# float units one each a clock, two ALUs, two memory references; iWarp's float
# adder and multiplier one every second clock and one integer unit for the two
# ALU fields (seed 000; target/target.c, wt_class_issue and wt_class_interval).
PEAK = {"warp": {"FA": 1, "FM": 1, "ALU": 2, "MEM": 2},
        "iwarp": {"FA": 0.5, "FM": 0.5, "ALU": 1, "MEM": 2}}


# name, cells, inputs, reference, the operations of the units it keeps busiest,
# on the busiest cell (the bound on a model: the largest of them over the unit's
# peak there, the busiest unit can differ between the models), and the flags it
# runs with on Warp
def fft_bound():
    return 6 * 512 * FFT_NT       # six float adds a butterfly, 512 a transform, every stage cell


APPS = [
    # The cells of the FFT run loops of different lengths (cell 0 reads the
    # host, cell 9 writes it): compile-time flow control finds no skew for
    # them; the cells wait for their queues at run time instead.
    ("fft", 10, None, None, {"FA": fft_bound()}, ["-fno-flow-control"]),
    ("conv2d", 1, conv2d_inputs, conv2d_ref, {"FM": 9 * 1024}, []),
    # per product added: a load of b, a load and a store of the row; and the
    # loads and stores of A, B in, the first row products, the row out. On
    # iWarp the multiplier is busier: 32768 products, one every second clock.
    ("matmul", 1, matmul_inputs, matmul_ref,
     {"MEM": 3 * 32 * 32 * 31 + 2 * 2048 + 2 * 1024 + 1024, "FM": 32 * 32 * 32, "FA": 32 * 32 * 31}, []),
    ("stencil", 10, stencil_inputs, stencil_ref, {"FA": 3 * 1024}, []),
    # per cell of the table: three adds and a compare for the terms, two
    # minimums (imin) of them
    # (at -O0, timing the host I/O of 65536 table cells at compile time takes
    # more than flow control's budget of abstract execution: one cell needs no
    # skew anyway)
    ("editdist", 1, editdist_inputs, editdist_ref, {"ALU": 6 * 64 * 64 * 16}, ["-fno-flow-control"]),
    # per comparator: two loads and two stores
    ("sort", 1, sort_inputs, sort_ref, {"MEM": 4 * (64 + 63) * 64}, []),
]
APPS_BY_NAME = {a[0]: a for a in APPS}


def app_data(name):
    if name == "fft":
        ins, xs = fft_inputs(FFT_NT)
        return ins, fft_ref(ins, xs)
    app = APPS_BY_NAME[name]
    ins = app[2]()
    return ins, app[3](ins)


# ---- running ----------------------------------------------------------------------

def compile_src(bindir, src_path, flags, out):
    cc = subprocess.run([os.path.join(bindir, "warp-cc")] + flags + ["-o", out, src_path],
                        capture_output=True, text=True)
    return cc.returncode == 0, cc.stderr


def simulate(bindir, img, ins, outs, tmp):
    args = [os.path.join(bindir, "warp-sim"), img, "--stats"]
    for arr, vals in ins.items():
        path = os.path.join(tmp, "in." + arr)
        with open(path, "w") as fh:
            fh.write("\n".join(fmt(v) for v in vals) + "\n")
        args += ["--in", "%s=%s" % (arr, path)]
    for arr in outs:
        args += ["--out", "%s=%s" % (arr, os.path.join(tmp, "out." + arr))]
    return subprocess.run(args, capture_output=True, text=True)


def run(bindir, name, flags, tmp, data=None):
    """Compiles and runs one program: (results equal, cycles, why)."""
    src = os.path.join(ADIR, name + ".w2")
    img = os.path.join(tmp, name + ".img")
    flags = flags + (APPS_BY_NAME[name][5] if "-mcpu=warp" in flags else [])
    ok, err = compile_src(bindir, src, flags, img)
    if not ok:
        return False, 0, "warp-cc: " + (err.strip().splitlines() or ["?"])[0]
    ins, ref = data or app_data(name)
    sim = simulate(bindir, img, ins, ref, tmp)
    if sim.returncode != 0:
        return False, 0, "warp-sim exit %d: %s" % (sim.returncode, (sim.stderr.strip().splitlines() or ["?"])[0])
    for arr, want in ref.items():
        with open(os.path.join(tmp, "out." + arr)) as fh:
            got = fh.read().split()
        exp = [fmt(v) for v in want]
        if got != exp:
            bad = next((i for i in range(min(len(got), len(exp))) if got[i] != exp[i]), min(len(got), len(exp)))
            return False, 0, "%s[%d]: %s, the reference says %s" % (
                arr, bad, got[bad] if bad < len(got) else "-", exp[bad] if bad < len(exp) else "-")
    return True, int(re.search(r"^cycles: (\d+)", sim.stderr, re.M).group(1)), ""


def loops(bindir, name, flags, tmp):
    """Each pipelined loop as LINE:II/MII and its bound ('rec' where RecMII
    decides), and each innermost loop left alone, with why."""
    asm = os.path.join(tmp, name + ".s")
    flags = flags + (APPS_BY_NAME[name][5] if "-mcpu=warp" in flags else [])
    subprocess.run([os.path.join(bindir, "warp-cc")] + flags + ["-S", "-o", asm, os.path.join(ADIR, name + ".w2")],
                   check=True, capture_output=True)
    out, left = [], []
    for block in open(asm).read().split("SOFTWARE PIPELINE INFORMATION")[1:]:
        block = block.split("*--")[0]
        line = re.search(r"Loop source line\s*: .*?:(\d+)", block).group(1)
        why = re.search(r"Disqualified loop: (.*)", block)
        if why:
            if "contains a loop" not in why.group(1):
                left.append("%s (%s)" % (line, why.group(1).strip()))
            continue
        ii, mii, res, rec = (int(g) for g in
                             re.search(r"II=(\d+) MII=(\d+) \(ResMII=(\d+), RecMII=(\d+)\)", block).groups())
        bound = re.search(r"Resource bound\s*: \d+ \(ResMII, ([^)]*)\)", block).group(1)
        # a body unrolled before scheduling: II for that many iterations
        unrolled = re.search(r"Body unrolled before scheduling\s*: (\d+) times", block)
        out.append("%s:%d/%d%s%s%s" % (line, ii, mii, "" if ii == mii else "!", "rec" if rec > res else bound,
                                       "(x%s)" % unrolled.group(1) if unrolled else ""))
    return out, left


def table(bindir, opt, models):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, cells, _, _, units, _ in APPS:
            data = app_data(name)
            for model in models:
                bound, unit = max((ops / PEAK[model][u], u) for u, ops in units.items())
                flags = ["-" + opt, "-mcpu=" + model]
                ok, cycles, why = run(bindir, name, flags, tmp, data)
                lp, left = loops(bindir, name, flags, tmp)
                if left:
                    why = (why + "; " if why else "") + "not pipelined: " + ", ".join(left)
                rows.append((name, model, cells, "ok" if ok else "FAIL", cycles, "%s %d" % (unit, bound),
                             cycles / bound if ok else 0.0, " ".join(lp), why))
    print("program   model  cells result   cycles  busiest-unit bound  ratio  loops LINE:II/MII bound (-%s)" % opt)
    for r in rows:
        print("%-9s %-6s %5d %-6s %8d  %-18s %5.2f  %s" % r[:8])
        if r[8]:
            print("          %s" % r[8])
    return 0 if all(r[3] == "ok" for r in rows) else 1


def check(bindir, names):
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            data = app_data(name)
            for model in ("warp", "iwarp"):
                cycles, all_ok = {}, True
                for opt in ("O0", "O1", "O2", "O3"):
                    for swp in ([], ["-fno-swp"]):
                        flags = ["-" + opt, "-mcpu=" + model] + swp
                        ok, cycles[" ".join([opt] + swp)], why = run(bindir, name, flags, tmp, data)
                        print("%s %s %s: %s" % ("PASS" if ok else "FAIL", name, " ".join(flags),
                                                "%d cycles" % cycles[" ".join([opt] + swp)] if ok else why))
                        failed += not ok
                        all_ok &= ok
                if all_ok:
                    print("LEVELS %s -mcpu=%s: %s (pipelined / -fno-swp)" % (name, model, ", ".join(
                        "-%s %d / %d" % (o, cycles[o], cycles[o + " -fno-swp"]) for o in ("O1", "O2", "O3"))))
                for why in slower(cycles) if all_ok else []:
                    print("FAIL %s -mcpu=%s: slower: %s" % (name, model, why))
                    failed += 1
    print("%d failed" % failed)
    return 1 if failed else 0


def fft_throughput(bindir):
    cycles = {}
    with tempfile.TemporaryDirectory() as tmp:
        for nt in (FFT_NT, 2 * FFT_NT):
            src = os.path.join(tmp, "fft%d.w2" % nt)
            with open(src, "w") as fh:
                fh.write(fft_source(nt))
            img = os.path.join(tmp, "fft%d.img" % nt)
            ok, err = compile_src(bindir, src, ["-O2", "-mcpu=warp"] + APPS_BY_NAME["fft"][5], img)
            if not ok:
                print("apps.py: warp-cc: %s" % err.strip(), file=sys.stderr)
                return 1
            ins, xs = fft_inputs(nt)
            ref = fft_ref(ins, xs)
            sim = simulate(bindir, img, ins, ref, tmp)
            if sim.returncode != 0:
                print("apps.py: warp-sim: %s" % sim.stderr.strip(), file=sys.stderr)
                return 1
            for arr, want in ref.items():
                with open(os.path.join(tmp, "out." + arr)) as fh:
                    if fh.read().split() != [fmt(v) for v in want]:
                        print("apps.py: the FFT of %d transforms differs from the reference (%s)" % (nt, arr),
                              file=sys.stderr)
                        return 1
            cycles[nt] = int(re.search(r"^cycles: (\d+)", sim.stderr, re.M).group(1))
    print("cycles per transform: %d" % round((cycles[2 * FFT_NT] - cycles[FFT_NT]) / FFT_NT))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--check", action="store_true", help="results at every level, swp on and off, both models")
    ap.add_argument("--fft-throughput", action="store_true", help="cycles per transform of the streamed FFT")
    ap.add_argument("--app", action="append", choices=[a[0] for a in APPS], help="only these (with --check)")
    ap.add_argument("--model", choices=("warp", "iwarp"), action="append")
    ap.add_argument("-O", dest="opt", default="2", choices=("0", "1", "2", "3"))
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    if args.fft_throughput:
        return fft_throughput(bindir)
    if args.check:
        return check(bindir, args.app or [a[0] for a in APPS])
    return table(bindir, "O" + args.opt, args.model or ["warp", "iwarp"])


if __name__ == "__main__":
    sys.exit(main())
