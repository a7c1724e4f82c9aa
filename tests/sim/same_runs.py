#!/usr/bin/env python3
"""Runs every example, kernel, conformance program and simulator test program on
warp-sim under several configurations and checks that each gives byte-identical
results: exit status, standard output, --stats (cycle counts, per-cell figures,
channel figures), fault and deadlock reports and the deadlock graph.

    same_runs.py --build BUILD --baseline BIN
        this build's warp-sim against another's (BIN: a directory holding warp-sim),
        to show that a change to the simulator changed no simulated clock
    same_runs.py --build BUILD --threads 1,2,4
        this build's warp-sim on each number of threads (--threads N)

Programs are compiled once by BUILD's warp-cc, at -O2 and -O0 for both models.
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def host_inputs(directory, name):
    ins = []
    for f in sorted(os.listdir(directory)):
        stem, _, ext = f.partition(".")
        if stem == name and ext and ext not in ("w2", "expected", "warp-error", "h"):
            ins += ["--in", "%s=%s" % (ext, os.path.join(directory, f))]
    return ins


def programs(only=None):
    """(name, source, sim arguments) of every program to run; only: the folders
    (examples, kernels, conformance, simulator, bench) to take them from."""
    wanted = lambda what: not only or what in only
    found = []
    for d in ("examples", os.path.join("bench", "kernels"), os.path.join("tests", "conformance")):
        if not wanted(os.path.basename(d)):
            continue
        directory = os.path.join(ROOT, d)
        for f in sorted(os.listdir(directory)):
            if f.endswith(".w2"):
                stem = f[:-3]
                found.append((os.path.join(d, stem), os.path.join(directory, f), host_inputs(directory, stem)))
    if wanted("bench"):
        found.append(("bench/stream64", os.path.join(ROOT, "bench", "stream64.w2"), []))
    simdir = os.path.join(ROOT, "tests", "lit", "simulator")
    for f in sorted(os.listdir(simdir)):
        if f.endswith(".s") and wanted("simulator"):
            found.append((os.path.join("tests/lit/simulator", f), os.path.join(simdir, f), []))
    if wanted("bench"):
        found.append(("bench/torus64.s", os.path.join(ROOT, "bench", "torus64.s"), ["--topology", "torus:8x8"]))
    return found


def build_images(bindir, tmp, only=None):
    """(label, image, sim arguments) for each program that compiles."""
    images = []
    for name, src, args in programs(only):
        base = os.path.join(tmp, name.replace("/", "_"))
        if src.endswith(".s"):
            obj, img = base + ".o", base + ".img"
            ok = subprocess.run([os.path.join(bindir, "warp-as"), "-o", obj, src], capture_output=True).returncode == 0
            ok = ok and subprocess.run([os.path.join(bindir, "warp-ld"), "-e", "main", "-o", img, obj],
                                       capture_output=True).returncode == 0
            if ok:
                images.append((name, img, args))
            continue
        for cpu in ("warp", "iwarp"):
            for opt in ("-O2", "-O0"):
                img = "%s.%s%s.img" % (base, cpu, opt)
                r = subprocess.run([os.path.join(bindir, "warp-cc"), opt, "-mcpu=" + cpu, "-o", img, src],
                                   capture_output=True)
                if r.returncode == 0:
                    images.append(("%s %s %s" % (name, cpu, opt), img, args))
    return images


def run(sim, img, args, extra, tmp):
    dot = os.path.join(tmp, "deadlock.dot")
    if os.path.exists(dot):
        os.unlink(dot)
    r = subprocess.run([sim, img, "--stats", "--deadlock-dot", dot] + args + extra, capture_output=True,
                       timeout=600)
    graph = open(dot, "rb").read() if os.path.exists(dot) else b""
    return r.returncode, r.stdout, r.stderr, graph


def first_difference(a, b):
    names = ("exit status", "standard output", "standard error (--stats, reports)", "deadlock graph")
    for name, x, y in zip(names, a, b):
        if x != y:
            if isinstance(x, bytes):
                xl, yl = x.decode(errors="replace").splitlines(), y.decode(errors="replace").splitlines()
                for i, (p, q) in enumerate(zip(xl, yl)):
                    if p != q:
                        return "%s, line %d:\n      %s\n   vs %s" % (name, i + 1, p, q)
                return "%s: %d lines vs %d" % (name, len(xl), len(yl))
            return "%s: %s vs %s" % (name, x, y)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--baseline", help="a directory with another warp-sim to compare against")
    ap.add_argument("--threads", help="numbers of threads to compare, comma-separated (e.g. 1,2,4)")
    ap.add_argument("--only", help="folders to take programs from, comma-separated: examples, kernels, "
                    "conformance, simulator, bench (default: all)")
    ap.add_argument("--extra", default="", help="further warp-sim arguments for every run (space-separated)")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    sim = os.path.join(bindir, "warp-sim")
    extra = args.extra.split()
    configs = []
    if args.baseline:
        configs = [("baseline", os.path.join(args.baseline, "warp-sim"), []), ("this build", sim, [])]
    if args.threads:
        configs += [("--threads %s" % n, sim, ["--threads", n]) for n in args.threads.split(",")]
    if len(configs) < 2:
        ap.error("give --baseline or two or more --threads")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        images = build_images(bindir, tmp, args.only.split(",") if args.only else None)
        for label, img, simargs in images:
            ref = None
            for cname, binary, cargs in configs:
                got = run(binary, img, simargs, cargs + extra, tmp)
                if ref is None:
                    ref = (cname, got)
                    continue
                diff = first_difference(ref[1], got)
                if diff:
                    failures += 1
                    print("DIFFERS: %s: %s against %s: %s" % (label, cname, ref[0], diff))
        print("%d runs of %d images compared over %d configurations: %d differ" %
              (len(images) * len(configs), len(images), len(configs), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
