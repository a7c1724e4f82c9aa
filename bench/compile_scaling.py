#!/usr/bin/env python3
"""Compile time and memory against program size: for each shape a program of N
source lines can take, warp-cc's wall time and maximum resident set (medians of
RUNS runs, /usr/bin/time -v; CPU time, user and system, since the machines
this runs on are shared: the wall clock of an idle machine is close to it), at each -O level and model asked for.

    bench/compile_scaling.py [--build build] [--runs 3] [--sizes 1000,10000,100000]
                             [--shapes straight,ifs,calls,funcs,loop] [--levels=-O0,-O2]
                             [--model iwarp,warp] [--timeout 120] [--max-mb 4096]
    bench/compile_scaling.py --emit SHAPE N FILE
        writes the program of that shape and size (the lit tests use this too)

The shapes:
  straight  one straight-line block of N assignments
  ifs       N two-way ifs in the body of one loop (as ../shared gen_ifs.py)
  calls     one small function with two loops, called N times (slow_inline500)
  funcs     N/6 functions of five lines, each called once
  loop      one loop whose body is N assignments

A run that takes longer than --timeout CPU seconds is stopped ("timeout"), one that
asks for more than --max-mb of address space fails; either is shown as such. A
program the compiler refuses (a limit, program memory) shows its exit status;
the refusal's time and memory count all the same: a limit must answer fast too.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def straight(n):
    body = []
    for i in range(n):
        c = (3 * i) % 7
        if i % 3 == 0:
            body.append("  y := y * x + %d.0;" % c)
        elif i % 3 == 1:
            body.append("  x := x - y * 0.5;")
        else:
            body.append("  z := z + x * %d.0 - y;" % (c + 1))
    return ("module m (xs in, r out)\nfloat xs[4];\nfloat r[3];\ncellprogram (c : 0 : 0)\nbegin\n"
            "  float x, y, z;\n  receive (L, X, x, xs[0]);\n  y := 0.0;\n  z := 1.0;\n"
            + "\n".join(body) + "\n  send (R, X, x, r[0]);\n  send (R, X, y, r[1]);\n  send (R, X, z, r[2])\nend\n")


def ifs(n):
    return ("module m (a in, r out)\nint a[8];\nint r[8];\ncellprogram (c : 0 : 0)\nbegin\n"
            "  int i, x, y, z, k;\n  for i := 0 to 7 do begin\n    receive (L, X, x, a[i]);\n"
            "    y := x + 1;\n    z := x - 1;\n"
            + "    if not (x < y) and not (y < z) then k := 1 else k := 0;\n" * n
            + "    send (R, X, k, r[i])\n  end\nend\n")


def calls(n):
    return ("module m (iv in, rev out)\nint iv[8];\nint rev[8];\ncellprogram (cid : 0 : 0)\nbegin\n"
            "  int hist[8];\n  int i;\n  function reverse\n  begin\n    int tmp[8];\n    int j;\n"
            "    for j := 0 to 7 do tmp[j] := hist[7 - j];\n"
            "    for j := 0 to 7 do hist[j] := tmp[j] * 10 + cid\n  end\n"
            "  for i := 0 to 7 do receive (L, X, hist[i], iv[i]);\n"
            + "  call reverse;\n" * n
            + "  for i := 0 to 7 do send (R, X, hist[i], rev[i])\nend\n")


def funcs(n):
    nf = max(1, n // 6)
    parts = ["module m (a in, r out)\nint a[1];\nint r[1];\ncellprogram (c : 0 : 0)\nbegin\n  int x, y;\n"]
    for f in range(nf):
        parts.append("  function f%d\n  begin\n    x := x * %d + y;\n    if x > %d then y := y - x\n"
                     "    else y := y + %d\n  end\n" % (f, f % 5 + 2, 1000 + f, f % 11 + 1))
    parts.append("  receive (L, X, x, a[0]);\n  y := 1;\n")
    parts += ["  call f%d;\n" % f for f in range(nf)]
    parts.append("  send (R, X, x + y, r[0])\nend\n")
    return "".join(parts)


def loop(n):
    body = []
    for i in range(n):
        c = (5 * i) % 11
        if i % 2 == 0:
            body.append("    y := y * x + %d.0;" % c)
        else:
            body.append("    z := z - y * %d.0;" % (c + 1))
    return ("module m (xs in, r out)\nfloat xs[8];\nfloat r[8];\ncellprogram (c : 0 : 0)\nbegin\n"
            "  float x, y, z;\n  int i;\n  y := 0.0;\n  z := 1.0;\n  for i := 0 to 7 do begin\n"
            "    receive (L, X, x, xs[i]);\n" + "\n".join(body) + "\n    send (R, X, y + z, r[i])\n  end\nend\n")


SHAPES = {"straight": straight, "ifs": ifs, "calls": calls, "funcs": funcs, "loop": loop}


def measure(cc, args, timeout, max_mb):
    """(CPU seconds, max RSS in MB, exit status and the first message, or 'timeout')."""
    def cap():
        limit = max_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CPU, (int(timeout), int(timeout) + 1))
    try:
        p = subprocess.run(["/usr/bin/time", "-v", cc] + args, capture_output=True, text=True, timeout=timeout * 10,
                           preexec_fn=cap)
    except subprocess.TimeoutExpired:
        return timeout, float("nan"), "timeout"
    if "Command terminated by signal 24" in p.stderr:
        return timeout, float("nan"), "timeout"
    secs, rss, why = 0.0, float("nan"), ""
    for line in p.stderr.splitlines():
        if not why and p.returncode and line.startswith("warp-cc"):
            why = " " + line[:100]
        line = line.strip()
        if line.startswith("User time (seconds)") or line.startswith("System time (seconds)"):
            secs += float(line.split(": ", 1)[1])
        elif line.startswith("Maximum resident set size"):
            rss = int(line.split(": ", 1)[1]) / 1024.0
    return secs, rss, "%d%s" % (p.returncode, why)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--levels", default="-O0,-O2")
    ap.add_argument("--model", default="iwarp,warp")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--max-mb", type=int, default=4096)
    ap.add_argument("--emit", nargs=3, metavar=("SHAPE", "N", "FILE"))
    a = ap.parse_args()
    if a.emit:
        shape, n, path = a.emit
        with open(path, "w") as out:
            out.write(SHAPES[shape](int(n)))
        return 0
    cc = os.path.join(a.build, "bin", "warp-cc")
    print("warp-cc compile time (CPU seconds, user + system) and max RSS (MB), medians of %d runs; "
          "status 0 = compiled" % a.runs)
    print("%-9s %7s %6s %-6s %9s %9s %s" % ("shape", "lines", "level", "model", "CPU s", "RSS MB", "status"))
    gave_up = set()  # (shape, level, model) that timed out at a smaller size
    with tempfile.TemporaryDirectory() as tmp:
        for shape in a.shapes.split(","):
            for n in [int(s) for s in a.sizes.split(",")]:
                src = os.path.join(tmp, "%s%d.w2" % (shape, n))
                with open(src, "w") as out:
                    out.write(SHAPES[shape](n))
                lines = sum(1 for _ in open(src))
                for level in a.levels.split(","):
                    for model in a.model.split(","):
                        if (shape, level, model) in gave_up:
                            print("%-9s %7d %6s %-6s %9s %9s %s" % (shape, lines, level, model, "-", "-",
                                                                    "skipped (a smaller size timed out)"))
                            continue
                        runs = [measure(cc, ["-mcpu=" + model, level, "-o", os.path.join(tmp, "out.img"), src],
                                        a.timeout, a.max_mb) for _ in range(a.runs)]
                        secs = statistics.median(r[0] for r in runs)
                        rss = statistics.median(r[1] for r in runs)
                        status = runs[-1][2]
                        print("%-9s %7d %6s %-6s %9.2f %9.1f %s" % (shape, lines, level, model, secs, rss, status),
                              flush=True)
                        if status == "timeout":
                            gave_up.add((shape, level, model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
