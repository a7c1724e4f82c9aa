#!/usr/bin/env python3
"""Checks warp-sim's pictures of a run (--trace, --vcd, --heatmap, --trace-window) on
every example on both models and on the 8x8 torus:

- a run with pictures gives the same results, --stats and exit status as one without;
- the trace is trace-event JSON (json.load): a track for each cell, slices that do not
  overlap within a track and lie within the run (or the window), queue-fill counters;
- the VCD parses (the small reader below): every variable declared once, times rising,
  values within their width, queue fill never above the queue's depth, and the fill
  at each change equal to the trace's counter for that cell at that clock;
- the heat map is SVG (xml.etree): one cell rectangle for each cell, and each cell's
  issued count in its tooltip equal to --stats;
- --trace-window FROM:TO keeps every slice, counter and VCD time within the window;
- a Warp program that uses the address path (--stats' `address path @adr:` line;
  tests/lit/simulator/address-path.s) shows each cell's @adr queue as `fill_adr` in
  the VCD and `adr` in the trace's counters, filled in the first cell; one that
  does not shows neither.

    pictures.py --build BUILD
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SVG = "{http://www.w3.org/2000/svg}"
QUEUE_DEPTH = {"warp": 128, "iwarp": 8}
# The address path's queue (warp_ops.def's WT_PATH row): its own depth.
PATH_DEPTH = {"fill_adr": 128}


def host_inputs(directory, name):
    ins = []
    for f in sorted(os.listdir(directory)):
        stem, _, ext = f.partition(".")
        if stem == name and ext and ext not in ("w2", "expected", "warp-error", "h"):
            ins += ["--in", "%s=%s" % (ext, os.path.join(directory, f))]
    return ins


def read_vcd(path):
    """(variables {id: (scope, name, width)}, changes [(time, id, value)])."""
    text = open(path).read()
    head, sep, body = text.partition("$enddefinitions $end")
    if not sep:
        raise ValueError("no $enddefinitions")
    variables, scope = {}, []
    for tok in re.finditer(r"\$(\w+)(.*?)\$end", head, re.S):
        kind, args = tok.group(1), tok.group(2).split()
        if kind == "scope":
            scope.append(args[1])
        elif kind == "upscope":
            scope.pop()
        elif kind == "var":
            vtype, width, ident, name = args[0], int(args[1]), args[2], args[3]
            if vtype != "wire" or ident in variables:
                raise ValueError("bad or repeated variable %s" % ident)
            variables[ident] = (".".join(scope), name, width)
    if scope:
        raise ValueError("unclosed scope")
    changes, time = [], None
    for line in body.split("\n"):
        line = line.strip()
        if not line or line in ("$dumpvars", "$end"):
            continue
        if line.startswith("#"):
            t = int(line[1:])
            if time is not None and t <= time:
                raise ValueError("time %d after %d" % (t, time))
            time = t
        elif line.startswith("b"):
            bits, ident = line[1:].split()
            if set(bits) - set("01") or len(bits) > variables[ident][2]:
                raise ValueError("bad vector value %r" % line)
            changes.append((time, ident, int(bits, 2)))
        elif line[0] in "01":
            ident = line[1:]
            if variables[ident][2] != 1:
                raise ValueError("scalar value for a vector: %r" % line)
            changes.append((time, ident, int(line[0])))
        else:
            raise ValueError("unreadable line %r" % line)
        if time is None:
            raise ValueError("a value before any time")
    return variables, changes


def check_trace(path, cells, lo, hi):
    doc = json.load(open(path))
    events = doc["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(names) == list(range(1, cells + 1)), "a track a cell"
    last_end = {}
    counters = {}
    slices = 0
    for e in sorted((e for e in events if e["ph"] == "X"), key=lambda e: (e["pid"], e["ts"])):
        assert e["dur"] > 0 and lo <= e["ts"] and e["ts"] + e["dur"] <= hi, "slice outside the run: %r" % e
        assert e["ts"] >= last_end.get(e["pid"], 0), "overlapping slices: %r" % e
        last_end[e["pid"]] = e["ts"] + e["dur"]
        slices += 1
    for e in events:
        if e["ph"] == "C":
            assert lo <= e["ts"] < hi, "counter outside the window: %r" % e
            counters.setdefault(e["pid"] - 1, {})[e["ts"]] = e["args"]
    return slices, counters


def counter_at(series, t):
    """The counter the trace wrote at clock t: one is written whenever a fill changes."""
    return series.get(t)


def check_vcd(path, cells, model, counters, lo, hi):
    variables, changes = read_vcd(path)
    per_cell = {}
    for ident, (scope, name, width) in variables.items():
        per_cell.setdefault(scope, []).append(name)
    assert len(per_cell) == cells, "a scope a cell"
    for time, ident, value in changes:
        scope, name, width = variables[ident]
        assert lo <= time <= hi, "VCD time %d outside %d..%d" % (time, lo, hi)
        if name.startswith("fill_"):
            assert value <= PATH_DEPTH.get(name, QUEUE_DEPTH[model]), "%s.%s holds %d words" % (scope, name, value)
            cell = int(scope.split(".")[-1][4:])
            args = counter_at(counters.get(cell, {}), time)
            assert args is not None and args[name[5:]] == value, \
                "%s.%s is %d at %d in the VCD, %r in the trace" % (scope, name, value, time, args)
    return variables, changes


def check_path(variables, changes, counters, cells, stats):
    """The address path's queues are shown where --stats says the program uses it."""
    uses = re.search(r"^address path @adr: (\d+) words from the iu", stats, re.M)
    adr = {ident: int(scope.split(".")[-1][4:]) for ident, (scope, name, _) in variables.items()
           if name == "fill_adr"}
    in_trace = any("adr" in args for series in counters.values() for args in series.values())
    if not uses:
        assert not adr and not in_trace, "@adr shown for a program that does not use it"
        return
    assert sorted(adr.values()) == list(range(cells)), "fill_adr in every cell"
    most = {}
    for time, ident, value in changes:
        if ident in adr:
            most[adr[ident]] = max(most.get(adr[ident], 0), value)
    if int(uses.group(1)):
        assert most.get(0, 0) > 0, "the IU's words never seen in the first cell's @adr queue"
    assert in_trace, "no adr counter in the trace"


def check_heatmap(path, cells, stats):
    root = ET.parse(path).getroot()
    assert root.tag == SVG + "svg"
    issued = [int(x) for x in re.findall(r"^cell \d+ \(cid -?\d+\): issued (\d+)", stats, re.M)]
    found = 0
    for g in root.iter(SVG + "g"):
        title = g.find(SVG + "title").text
        m = re.match(r"cell (\d+) \(cid -?\d+\): issued (\d+)", title)
        assert m and g.find(SVG + "rect") is not None
        assert int(m.group(2)) == issued[int(m.group(1))], "heat map and --stats differ: %s" % title
        found += 1
    assert found == cells, "%d cells drawn of %d" % (found, cells)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    sim = os.path.join(bindir, "warp-sim")
    failures = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        exdir = os.path.join(ROOT, "examples")
        for f in sorted(os.listdir(exdir)):
            if not f.endswith(".w2"):
                continue
            for model in ("warp", "iwarp"):
                img = os.path.join(tmp, "%s.%s.img" % (f[:-3], model))
                r = subprocess.run([os.path.join(bindir, "warp-cc"), "-O2", "-mcpu=" + model, "-o", img,
                                    os.path.join(exdir, f)], capture_output=True)
                if r.returncode == 0:
                    runs.append(("%s %s" % (f[:-3], model), model, img, host_inputs(exdir, f[:-3])))
        obj, img = os.path.join(tmp, "torus64.o"), os.path.join(tmp, "torus64.img")
        subprocess.run([os.path.join(bindir, "warp-as"), "-o", obj, os.path.join(ROOT, "bench", "torus64.s")],
                       check=True)
        subprocess.run([os.path.join(bindir, "warp-ld"), "-e", "main", "-o", img, obj], check=True)
        runs.append(("torus64 iwarp", "iwarp", img, ["--topology", "torus:8x8"]))
        obj, img, xs = (os.path.join(tmp, n) for n in ("adr.o", "adr.img", "adr.x"))
        subprocess.run([os.path.join(bindir, "warp-as"), "-o", obj,
                        os.path.join(ROOT, "tests", "lit", "simulator", "address-path.s")], check=True)
        subprocess.run([os.path.join(bindir, "warp-ld"), "-e", "main", "-o", img, obj], check=True)
        with open(xs, "w") as f:
            f.write("1\n2\n3\n4\n")
        runs.append(("address-path warp", "warp", img, ["--in", "x=" + xs]))
        for label, model, img, simargs in runs:
            try:
                plain = subprocess.run([sim, img, "--stats"] + simargs, capture_output=True, timeout=600)
                cycles = int(re.search(rb"^cycles: (\d+)", plain.stderr, re.M).group(1))
                cells = len(re.findall(rb"^cell \d+ ", plain.stderr, re.M))
                for window in (None, (cycles // 3, cycles // 3 + 40)):
                    trace, vcd, svg = (os.path.join(tmp, n) for n in ("t.json", "t.vcd", "t.svg"))
                    extra = ["--trace", trace, "--vcd", vcd, "--heatmap", svg]
                    lo, hi = 0, cycles + 1
                    if window:
                        extra += ["--trace-window", "%d:%d" % window]
                        lo, hi = window
                    pic = subprocess.run([sim, img, "--stats"] + simargs + extra, capture_output=True, timeout=600)
                    assert (pic.returncode, pic.stdout, pic.stderr) == (plain.returncode, plain.stdout, plain.stderr), \
                        "the run changed with pictures"
                    slices, counters = check_trace(trace, cells, lo, hi)
                    assert slices > 0, "no slices"
                    variables, changes = check_vcd(vcd, cells, model, counters, lo, hi)
                    if not window:
                        check_path(variables, changes, counters, cells, plain.stderr.decode())
                    check_heatmap(svg, cells, plain.stderr.decode())
                    checked += 1
            except (AssertionError, ValueError, KeyError, json.JSONDecodeError, ET.ParseError) as e:
                failures += 1
                print("FAIL: %s: %s" % (label, e))
        # Bad options say what is wrong and leave no file.
        for bad, why in ((["--trace-window", "9:3"], "--trace-window"),
                         (["--heatmap-by", "colour"], "--heatmap-by"),
                         (["--trace", os.path.join(tmp, "no", "such", "dir.json")], "dir.json")):
            r = subprocess.run([sim, runs[0][2]] + runs[0][3] + bad, capture_output=True)
            if r.returncode != 1 or why.encode() not in r.stderr:
                failures += 1
                print("FAIL: %s: exit %d, %r" % (" ".join(bad), r.returncode, r.stderr))
    print("%d runs with pictures checked, %d failures" % (checked, failures))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
