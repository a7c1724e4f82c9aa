#!/usr/bin/env python3
"""Prints the benchmark table: for each program, both models at -O2, the simulated
cycles, the compile time (median wall seconds of warp-cc over RUNS runs) and the
simulator's speed (median of RUNS measurements of simulated cell-clocks per CPU
second, each over several in-process runs). Medians, because these machines are
noisy.

    bench/run.py [--build build] [--runs 5]
    bench/run.py --comm [--build build] [--runs 5]
    bench/run.py --streams [--build build] [--runs 5] [--threads N] [--cells 10,64,256]

--streams prints the simulator's speed on a stream (bench/stream64.w2 widened to 10,
64 and 256 cells) on both models, the figure the simulator's targets are quoted in
(issue 18: 100 million cell-clocks per CPU second on Warp and 60 million on iWarp at
64 cells on one core). With --threads N it also prints each stream's speed per wall
second with 1 and with N threads, and their ratio (issue 18: 1.5 for 256 cells on
iWarp with 2 threads), with each thread's CPU seconds and the share of its time it
waited at the clocks' barriers, and the load average; a loaded machine makes the
ratio meaningless (a thread the scheduler does not run leaves its parts to the
others, so the run is then about as fast as one thread, no faster). --cells picks
other widths (512 or 1024 show how threads scale once an array's state outgrows one
core's cache); a stream of more than 256 cells carries fewer words, 20,000 * 256 /
cells, so that each run stays about as long.

--comm prints the iWarp communication agent's figures instead: the 64-cell array
streaming between neighbours and the 10-cell polynomial (W2, -mcpu=iwarp, through
the agents on a linear array), and 64 cells streaming over pathways on the 8x8
torus (bench/torus64.s), each against the agent's target of 20 million simulated
cell-clocks per CPU second.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = [
    ("polynomial", os.path.join(ROOT, "examples"), 200),
    ("fir", os.path.join(ROOT, "examples"), 200),
    ("matvec", os.path.join(ROOT, "examples"), 400),
    ("stream64", os.path.join(ROOT, "bench"), 1),
]


def host_inputs(directory, name):
    ins = []
    for f in sorted(os.listdir(directory)):
        stem, _, ext = f.partition(".")
        if stem == name and ext not in ("w2", "expected", "warp-error"):
            ins += ["--in", "%s=%s" % (ext, os.path.join(directory, f))]
    return ins


COMM_TARGET = 20.0  # million simulated cell-clocks per CPU second (issue 5)
COMM_PROGRAMS = [
    # name, source, repeat, extra bench-simspeed arguments
    ("stream64", os.path.join(ROOT, "bench", "stream64.w2"), 1, []),
    ("polynomial", os.path.join(ROOT, "examples", "polynomial.w2"), 200, []),
    ("torus64", os.path.join(ROOT, "bench", "torus64.s"), 3, ["--topology", "torus:8x8"]),
]


def simspeed_fields(bindir, img, repeat, extra):
    out = subprocess.run([os.path.join(bindir, "bench-simspeed"), img, "--repeat", str(repeat)] + extra,
                         check=True, capture_output=True, text=True).stdout.split()
    return dict(zip(out[0::2], out[1::2]))


def simspeed(bindir, img, repeat, extra, runs, field="mcell_cycles_per_s"):
    """Median, min and max speed (FIELD of bench-simspeed) over RUNS measurements, the
    cycles and the cells."""
    speeds, cycles, cells = [], 0, 0
    for _ in range(runs):
        fields = simspeed_fields(bindir, img, repeat, extra)
        speeds.append(float(fields[field]))
        cycles, cells = int(fields["cycles"]), int(fields["cells"])
    return statistics.median(speeds), min(speeds), max(speeds), cycles, cells


def threaded(bindir, img, repeat, threads, runs):
    """Wall-clock speeds with 1 and THREADS threads, measured alternately (the load
    changes between runs), their medians and ratio, and the median over the threaded
    runs of each thread's CPU seconds and share of its time waiting at barriers."""
    one, many, cpu, wait = [], [], [[] for _ in range(threads)], [[] for _ in range(threads)]
    for _ in range(runs):
        one.append(float(simspeed_fields(bindir, img, repeat, ["--threads", "1"])["mcell_cycles_per_wall_s"]))
        fields = simspeed_fields(bindir, img, repeat, ["--threads", str(threads)])
        many.append(float(fields["mcell_cycles_per_wall_s"]))
        for i in range(threads):
            if "thread%d_cpu_seconds" % i in fields:
                cpu[i].append(float(fields["thread%d_cpu_seconds" % i]))
                wait[i].append(float(fields["thread%d_wait_share" % i]))
    a, b = statistics.median(one), statistics.median(many)
    use = " ".join("%.2fs/%.0f%%" % (statistics.median(c), 100 * statistics.median(w))
                   for c, w in zip(cpu, wait) if c)
    return a, b, b / a, use or "one thread"


def comm(bindir, runs):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, src, repeat, extra in COMM_PROGRAMS:
            img = os.path.join(tmp, name + ".img")
            if src.endswith(".s"):
                obj = os.path.join(tmp, name + ".o")
                subprocess.run([os.path.join(bindir, "warp-as"), "-o", obj, src], check=True)
                subprocess.run([os.path.join(bindir, "warp-ld"), "-e", "main", "-o", img, obj], check=True)
            else:
                subprocess.run([os.path.join(bindir, "warp-cc"), "-O2", "-mcpu=iwarp", "-o", img, src], check=True)
                extra = extra + host_inputs(os.path.dirname(src), name)
            med, lo, hi, cycles, cells = simspeed(bindir, img, repeat, extra, runs)
            topology = extra[1] if extra[:1] == ["--topology"] else "linear"
            rows.append((name, cells, topology, cycles, med, lo, hi, "ok" if med >= COMM_TARGET else "BELOW"))
    print("iWarp communication agent: medians of %d runs, target %.0f Mcell-clk/s" % (runs, COMM_TARGET))
    print("%-11s %5s %-10s %9s %22s %s" % ("program", "cells", "topology", "cycles", "sim Mcell-clk/s (min-max)",
                                           "target"))
    for r in rows:
        print("%-11s %5d %-10s %9d %10.1f (%.1f-%.1f) %s" % r)
    return 0 if all(r[-1] == "ok" for r in rows) else 1


STREAM_CELLS = (10, 64, 256)


def stream_source(cells):
    """bench/stream64.w2 with CELLS cells (and fewer words past 256 cells)."""
    with open(os.path.join(ROOT, "bench", "stream64.w2")) as f:
        src = f.read()
    src = src.replace("module stream64", "module stream%d" % cells).replace("(cid : 0 : 63)",
                                                                         "(cid : 0 : %d)" % (cells - 1))
    if cells > 256:
        src = src.replace("19999", "%d" % (20000 * 256 // cells - 1))
    return src


def streams(bindir, runs, threads, widths=STREAM_CELLS):
    rows, threaded_rows, loads = [], [], []
    extra = []
    with tempfile.TemporaryDirectory() as tmp:
        for cells in widths:
            src = os.path.join(tmp, "stream%d.w2" % cells)
            with open(src, "w") as f:
                f.write(stream_source(cells))
            for cpu in ("warp", "iwarp"):
                img = os.path.join(tmp, "stream%d.%s.img" % (cells, cpu))
                subprocess.run([os.path.join(bindir, "warp-cc"), "-O2", "-mcpu=" + cpu, "-o", img, src], check=True)
                repeat = 1 if cells > 64 else 2
                med, lo, hi, cycles, ncells = simspeed(bindir, img, repeat, extra, runs)
                rows.append(("stream%d" % cells, cpu, ncells, cycles, med, lo, hi))
                if threads > 1:
                    loads.append(os.getloadavg()[0])
                    threaded_rows.append(("stream%d" % cells, cpu, ncells) + threaded(bindir, img, repeat, threads,
                                                                                       runs))
    print("simulator speed on streams: medians of %d runs, one thread, per CPU second" % runs)
    print("%-11s %-6s %5s %9s %22s" % ("program", "model", "cells", "cycles", "sim Mcell-clk/s (min-max)"))
    for r in rows:
        print("%-11s %-6s %5d %9d %10.1f (%.1f-%.1f)" % r)
    if threaded_rows:
        print("\nper wall second, medians of %d alternated runs: 1 thread and %d threads; each thread's CPU"
              " seconds/barrier wait share (0: the main thread); load average %.1f-%.1f"
              % (runs, threads, min(loads), max(loads)))
        print("%-11s %-6s %5s %12s %12s %7s  %s" % ("program", "model", "cells", "1 thread", "%d threads" % threads,
                                                   "ratio", "threads"))
        for r in threaded_rows:
            print("%-11s %-6s %5d %12.1f %12.1f %7.2f  %s" % r)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--comm", action="store_true", help="the iWarp communication agent's figures")
    ap.add_argument("--streams", action="store_true", help="the simulator's speed on 10, 64 and 256-cell streams")
    ap.add_argument("--threads", type=int, default=1,
                    help="with --streams: also the speed per wall second with this many threads")
    ap.add_argument("--cells", default=",".join(str(c) for c in STREAM_CELLS),
                    help="with --streams: the streams' widths, comma-separated")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    if args.streams:
        try:
            widths = [int(c) for c in args.cells.split(",")]
        except ValueError:
            ap.error("--cells takes numbers of cells, comma-separated: %s" % args.cells)
        if any(c < 1 or c > 1024 for c in widths):
            ap.error("--cells: each width is 1 to 1024 cells")
        return streams(bindir, args.runs, args.threads, widths)
    if args.comm:
        return comm(bindir, args.runs)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, directory, repeat in PROGRAMS:
            src = os.path.join(directory, name + ".w2")
            for cpu in ("warp", "iwarp"):
                img = os.path.join(tmp, "%s.%s.img" % (name, cpu))
                compile_times = []
                for _ in range(args.runs):
                    t0 = time.perf_counter()
                    subprocess.run([os.path.join(bindir, "warp-cc"), "-O2", "-mcpu=" + cpu, "-o", img, src],
                                   check=True)
                    compile_times.append(time.perf_counter() - t0)
                speeds, cycles, cells = [], 0, 0
                for _ in range(args.runs):
                    out = subprocess.run([os.path.join(bindir, "bench-simspeed"), img, "--repeat", str(repeat)]
                                         + host_inputs(directory, name),
                                         check=True, capture_output=True, text=True).stdout.split()
                    fields = dict(zip(out[0::2], out[1::2]))
                    speeds.append(float(fields["mcell_cycles_per_s"]))
                    cycles, cells = int(fields["cycles"]), int(fields["cells"])
                rows.append((name, cpu, cells, cycles, statistics.median(compile_times) * 1000,
                             statistics.median(speeds), min(speeds), max(speeds)))
    print("%-11s %-6s %5s %9s %11s %22s" % ("program", "model", "cells", "cycles", "compile ms",
                                            "sim Mcell-clk/s (min-max)"))
    for r in rows:
        print("%-11s %-6s %5d %9d %11.1f %10.1f (%.1f-%.1f)" % r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
