#!/usr/bin/env python3
"""The kernel suite: six W2 kernels (bench/kernels/*.w2), each with its host data
and a host reference, compiled and run on both models.

    bench/kernels.py [--build build] [-O2] [--model warp|iwarp]
        prints one table: for each kernel and model, whether the results equal the
        host reference, each software-pipelined loop's II against its MII (and the
        bound: the unit class behind ResMII, or "rec" where RecMII decides), the
        cycles, cycles per result against the unit-bound minimum (the kernel's
        float operations over the float units of all its cells), and the mean
        utilisation of the float adder (FA) and multiplier (FM) over the cells;
        under a Warp row, the pipelined loops whose cell code holds operations
        the interface unit could do (issue 15: host feeds of host data, host
        loads, host addresses, loop control; the loop reports count them; not
        the loop control of a loop the cells run different numbers of times,
        which the report calls "not the IU's").
    bench/kernels.py --check [--build build]
        checks every kernel's results against its reference at -O0..-O3, with
        software pipelining on and off, on both models (the ctest bench.kernels),
        and that -O3 is never slower than -O2 nor pipelining than -fno-swp (a
        LEVELS line a kernel and model gives the cycles); exit status 1 on any
        difference.
    bench/kernels.py --regen
        writes the host data files again (deterministic; they are committed).

References compute in single precision, one rounding an operation, in the order
the cells do (no fused multiply-add: the cells have separate units)."""
import argparse
import math
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KDIR = os.path.join(ROOT, "bench", "kernels")


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fmt(x):
    return "%.9g" % x


# ---- host data ----------------------------------------------------------------------

def gen_floats(rng, n, lo=-2.0, hi=2.0):
    return [f32(rng.uniform(lo, hi)) for _ in range(n)]


def generate():
    """Every kernel's input arrays, from fixed seeds."""
    data = {}
    rng = random.Random(1)
    data["polynomial"] = {"data": gen_floats(rng, 100, -1.0, 1.0), "coeffs": gen_floats(rng, 10)}
    rng = random.Random(2)
    data["fir"] = {"x": gen_floats(rng, 256), "w": gen_floats(rng, 8, -0.5, 0.5)}
    rng = random.Random(3)
    data["dot"] = {"a": gen_floats(rng, 480), "b": gen_floats(rng, 480)}
    rng = random.Random(4)
    data["matmul"] = {"a": gen_floats(rng, 32 * 8), "b": gen_floats(rng, 8 * 8)}
    rng = random.Random(5)
    data["conv3"] = {"pix": gen_floats(rng, 10 * 66, 0.0, 4.0), "w": gen_floats(rng, 9, -1.0, 1.0)}
    rng = random.Random(6)
    x = [(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(512)]
    u = [x[8 * (b // 4) + b % 4] for b in range(256)]
    v = [x[8 * (b // 4) + b % 4 + 4] for b in range(256)]
    data["fft"] = {
        "ure": [f32(p[0]) for p in u], "uim": [f32(p[1]) for p in u],
        "vre": [f32(p[0]) for p in v], "vim": [f32(p[1]) for p in v],
        "wr": [f32(math.cos(2 * math.pi * j / 8)) for j in range(4)],
        "wi": [f32(-math.sin(2 * math.pi * j / 8)) for j in range(4)],
    }
    return data


def read_inputs(name):
    ins = {}
    for f in sorted(os.listdir(KDIR)):
        stem, _, ext = f.partition(".")
        if stem == name and ext != "w2":
            with open(os.path.join(KDIR, f)) as fh:
                ins[ext] = [f32(float(t)) for t in fh.read().split()]
    return ins


# ---- host references -----------------------------------------------------------------

def ref_polynomial(d):
    out = []
    for x in d["data"]:
        y = 0.0
        for c in d["coeffs"]:            # cell k keeps coefficient k: y = c + y * x
            y = f32(c + f32(y * x))
        out.append(y)
    return {"results": out}


def ref_fir(d):
    x, w = d["x"], d["w"]
    out = []
    for i in range(256):
        y = 0.0
        for k in range(8):               # cell k: y + w[k] * x[i-k] (0 before the start)
            y = f32(y + f32(w[k] * (x[i - k] if i - k >= 0 else 0.0)))
        out.append(y)
    return {"y": out}


def ref_dot(d):
    a, b = d["a"], d["b"]
    total = 0.0
    for k in range(8):                   # cell k's chunk, five partial sums
        base = (7 - k) * 60
        s = [0.0] * 5
        for j in range(12):
            for t in range(5):
                i = base + 5 * j + t
                s[t] = f32(s[t] + f32(a[i] * b[i]))
        part = f32(f32(f32(f32(s[0] + s[1]) + s[2]) + s[3]) + s[4])
        total = f32(total + part)
    return {"result": [total]}


def ref_matmul(d):
    a, b = d["a"], d["b"]
    c = []
    for i in range(32):
        for k in range(8):
            acc = 0.0
            for j in range(8):
                acc = f32(acc + f32(a[8 * i + j] * b[8 * j + k]))
            c.append(acc)
    return {"c": c}


def ref_conv3(d):
    pix, w = d["pix"], d["w"]
    res = []
    for y in range(8):
        for x in range(64):
            s = 0.0
            for cell in range(3):        # cell k: kernel row 2-k, three products in order
                r = 2 - cell
                for dx in range(3):
                    s = f32(s + f32(w[3 * r + dx] * pix[66 * (y + r) + x + dx]))
            res.append(s)
    return {"res": res}


def ref_fft(d):
    o = {"yure": [], "yuim": [], "yvre": [], "yvim": []}
    for b in range(256):
        tr, ti = d["wr"][b % 4], d["wi"][b % 4]
        ur, ui, vr, vi = d["ure"][b], d["uim"][b], d["vre"][b], d["vim"][b]
        a = f32(f32(tr * vr) - f32(ti * vi))
        c = f32(f32(tr * vi) + f32(ti * vr))
        o["yure"].append(f32(ur + a))
        o["yuim"].append(f32(ui + c))
        o["yvre"].append(f32(ur - a))
        o["yvim"].append(f32(ui - c))
    return o


# name, reference, results, total float adds, total float multiplies
KERNELS = [
    ("polynomial", ref_polynomial, 100, 1000, 1000),
    ("fir", ref_fir, 256, 2048, 2048),
    ("dot", ref_dot, 1, 480 + 8 * 4 + 8, 480),
    ("matmul", ref_matmul, 256, 2048, 2048),
    ("conv3", ref_conv3, 512, 9 * 512, 9 * 512),
    ("fft", ref_fft, 256, 6 * 256, 4 * 256),
]


# ---- running --------------------------------------------------------------------------

def cells_of(src):
    m = re.search(r"cellprogram\s*\(\s*\w+\s*:\s*(\d+)\s*:\s*(\d+)\s*\)", open(src).read())
    return int(m.group(2)) - int(m.group(1)) + 1


def run(bindir, name, flags, tmp):
    """Compiles and runs one kernel: (results equal, cycles, mean FA%, mean FM%, why)."""
    src = os.path.join(KDIR, name + ".w2")
    img = os.path.join(tmp, name + ".img")
    cc = subprocess.run([os.path.join(bindir, "warp-cc")] + flags + ["-o", img, src], capture_output=True, text=True)
    if cc.returncode != 0:
        return False, 0, 0.0, 0.0, "warp-cc: " + cc.stderr.strip().splitlines()[0]
    ins = read_inputs(name)
    ref = dict(KERNELS_BY_NAME[name][1](ins))
    args = [os.path.join(bindir, "warp-sim"), img, "--stats"]
    for arr in ins:
        args += ["--in", "%s=%s" % (arr, os.path.join(KDIR, name + "." + arr))]
    for arr in ref:
        args += ["--out", "%s=%s" % (arr, os.path.join(tmp, arr + ".out"))]
    sim = subprocess.run(args, capture_output=True, text=True)
    if sim.returncode != 0:
        return False, 0, 0.0, 0.0, "warp-sim exit %d: %s" % (sim.returncode, sim.stderr.strip().splitlines()[0])
    ok, why = True, ""
    for arr, want in ref.items():
        with open(os.path.join(tmp, arr + ".out")) as fh:
            got = fh.read().split()
        exp = [fmt(v) for v in want]
        if got != exp:
            bad = next((i for i in range(min(len(got), len(exp))) if got[i] != exp[i]), min(len(got), len(exp)))
            ok, why = False, "%s[%d]: %s, the reference says %s" % (
                arr, bad, got[bad] if bad < len(got) else "-", exp[bad] if bad < len(exp) else "-")
            break
    cycles = int(re.search(r"^cycles: (\d+)", sim.stderr, re.M).group(1))
    fa = [float(x) for x in re.findall(r"FA ([\d.]+)%", sim.stderr)]
    fm = [float(x) for x in re.findall(r"FM ([\d.]+)%", sim.stderr)]
    return ok, cycles, sum(fa) / len(fa), sum(fm) / len(fm), why


def loops(bindir, name, flags, tmp):
    """Each pipelined loop as LINE:II/MII(bound), from the assembly's information
    block; each innermost loop left alone, with why; and (Warp) each loop's cell
    operations an iteration that the interface unit could do, as LINE:N: a
    pipelined loop's host feeds of host data, host loads, host addresses and loop
    control, any other loop's loop control."""
    src = os.path.join(KDIR, name + ".w2")
    asm = os.path.join(tmp, name + ".s")
    subprocess.run([os.path.join(bindir, "warp-cc")] + flags + ["-S", "-o", asm, src], check=True,
                   capture_output=True)
    text = open(asm).read()
    out, left, iu = [], [], []
    for block in text.split("SOFTWARE PIPELINE INFORMATION")[1:]:
        block = block.split("*--")[0]
        line = re.search(r"Loop source line\s*: .*?:(\d+)", block).group(1)
        why = re.search(r"Disqualified loop: (.*)", block)
        control = re.search(r"Loop control on the cells\s*: (\d+) the IU could do", block)
        if why:
            if "contains a loop" not in why.group(1):
                left.append("%s (%s)" % (line, why.group(1).strip()))
            # a loop left alone keeps its exit test on the cells where the IU does not count it
            if control and int(control.group(1)):
                iu.append("%s:%d" % (line, int(control.group(1))))
            continue
        m = re.search(r"II=(\d+) MII=(\d+) \(ResMII=(\d+), RecMII=(\d+)\)", block)
        ii, mii, res, rec = (int(g) for g in m.groups())
        bound = re.search(r"Resource bound\s*: \d+ \(ResMII, ([^)]*)\)", block).group(1)
        out.append("%s:%d/%d%s%s" % (line, ii, mii, "" if ii == mii else "!", "rec" if rec > res else bound))
        host = re.search(r"Host operations on the cells\s*: (\d+) feeds \((\d+) constant\), (\d+) host loads, "
                         r"(\d+) host addresses", block)
        n = (int(host.group(1)) - int(host.group(2)) + int(host.group(3)) + int(host.group(4)) if host else 0) + \
            (int(control.group(1)) if control else 0)
        if n:
            iu.append("%s:%d" % (line, n))
    return out, left, iu


KERNELS_BY_NAME = {k[0]: k for k in KERNELS}


# Clocks a float unit takes per operation at its peak (target/warp_ops.def's issue
# intervals): iWarp's adder and multiplier each take one every second clock
# (seed 000: 20 MFLOPS at 20 MHz for the two).
FLOAT_OP_CLOCKS = {"warp": 1, "iwarp": 2}


def table(bindir, opt, models):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, _, nres, fa_ops, fm_ops in KERNELS:
            cells = cells_of(os.path.join(KDIR, name + ".w2"))
            for model in models:
                minimum = max(fa_ops, fm_ops) * FLOAT_OP_CLOCKS[model] / cells / nres
                flags = ["-" + opt, "-mcpu=" + model]
                ok, cycles, fa, fm, why = run(bindir, name, flags, tmp)
                lp, left, iu = loops(bindir, name, flags, tmp)
                if left: why = (why + "; " if why else "") + "not pipelined: " + ", ".join(left)
                if iu: why = (why + "; " if why else "") + "cell operations the IU could do: " + " ".join(iu)
                rows.append((name, model, cells, "ok" if ok else "FAIL", cycles, cycles / nres if ok else 0.0,
                             minimum, fa, fm, " ".join(lp), why))
    print("kernel      model  cells result   cycles  cyc/result  min/result   FA%%   FM%%  loops LINE:II/MII bound (-%s)"
          % opt)
    for r in rows:
        print("%-11s %-6s %5d %-6s %8d %11.2f %11.2f %5.1f %5.1f  %s" % r[:10])
        if r[10]:
            print("            %s" % r[10])
    return 0 if all(r[3] == "ok" for r in rows) else 1


def slower(cycles):
    """The ways -O3 or pipelining made a run slower: -O3 against -O2 (each with
    pipelining and without), and pipelining against -fno-swp at -O1..-O3."""
    bad = []
    for swp in ("", " -fno-swp"):
        if cycles["O3" + swp] > cycles["O2" + swp]:
            bad.append("-O3%s: %d cycles, -O2%s: %d" % (swp, cycles["O3" + swp], swp, cycles["O2" + swp]))
    for opt in ("O1", "O2", "O3"):
        if cycles[opt] > cycles[opt + " -fno-swp"]:
            bad.append("-%s: %d cycles, -%s -fno-swp: %d" % (opt, cycles[opt], opt, cycles[opt + " -fno-swp"]))
    return bad


def check(bindir):
    """Results at every level, with and without pipelining, on both models; and
    that -O3 is never slower than -O2 nor pipelining than -fno-swp (one line a
    kernel and model: the cycles at -O1..-O3, pipelined / -fno-swp)."""
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, *_ in KERNELS:
            for model in ("warp", "iwarp"):
                cycles, all_ok = {}, True
                for opt in ("O0", "O1", "O2", "O3"):
                    for swp in ([], ["-fno-swp"]):
                        flags = ["-" + opt, "-mcpu=" + model] + swp
                        ok, n, _, _, why = run(bindir, name, flags, tmp)
                        cycles[" ".join([opt] + swp)] = n
                        print("%s %s %s: %s" % ("PASS" if ok else "FAIL", name, " ".join(flags),
                                                "%d cycles" % n if ok else why))
                        failed += not ok
                        all_ok &= ok
                if not all_ok:
                    continue
                print("LEVELS %s -mcpu=%s: %s (pipelined / -fno-swp)" % (name, model, ", ".join(
                    "-%s %d / %d" % (o, cycles[o], cycles[o + " -fno-swp"]) for o in ("O1", "O2", "O3"))))
                for why in slower(cycles):
                    print("FAIL %s -mcpu=%s: slower: %s" % (name, model, why))
                    failed += 1
    print("%d failed" % failed)
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--check", action="store_true", help="results at every level, swp on and off, both models")
    ap.add_argument("--regen", action="store_true", help="write the host data files again")
    ap.add_argument("--model", choices=("warp", "iwarp"), action="append")
    ap.add_argument("-O", dest="opt", default="2", choices=("0", "1", "2", "3"))
    args = ap.parse_args()
    if args.regen:
        for name, arrays in generate().items():
            for arr, vals in arrays.items():
                with open(os.path.join(KDIR, "%s.%s" % (name, arr)), "w") as fh:
                    fh.write("\n".join(fmt(v) for v in vals) + "\n")
        return 0
    bindir = os.path.join(args.build, "bin")
    if args.check:
        return check(bindir)
    return table(bindir, "O" + args.opt, args.model or ["warp", "iwarp"])


if __name__ == "__main__":
    sys.exit(main())
