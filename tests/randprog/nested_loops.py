#!/usr/bin/env python3
"""Nested counted loops that carry one address counter through all of them, the
shape the pipeliner's loop-entry reasoning must get right (regress/
swp_counter_outer_loop.w2 came from it): an outer loop of 1-5 trips, `to` or
`downto`, whose body runs an inner loop (sometimes inside a middle one) that
receives x[k] and steps k, then sends a row sum home. Writes, for each seed,
nestN.w2 and its input nestN.x (1, 2, ...) into DIR; check them against the
reference interpreter with randprog.py:

    tests/randprog/nested_loops.py --seeds 1-450 --out DIR
    tests/randprog/randprog.py --bin build/bin --check DIR/nest*.w2
"""
import argparse
import os
import random


def bounds(r):
    a, n = r.randint(-3, 4), r.randint(1, 5)
    if r.random() < 0.3:
        return "%d downto %d" % (a + n - 1, a), n
    return "%d to %d" % (a, a + n - 1), n


def program(seed):
    """(source, number of x words) of one program."""
    r = random.Random(seed)
    (b1, n1), (b2, n2), (b3, n3) = bounds(r), bounds(r), bounds(r)
    use_after = r.random() < 0.5
    three = r.random() < 0.5
    body = "s := s + float(j) * 0.5 + a" if r.random() < 0.5 else "s := s + a * a * a"
    inner = ("for j := %s do begin\n        receive (L, X, a, x[k]);\n        send (R, X, a);\n"
             "        k := k + 1;\n        %s\n      end" % (b2, body))
    nx = n1 * n2
    if three:
        inner = "for m := %s do begin\n      %s;\n      s := s + float(m)\n    end" % (b3, inner)
        nx *= n3
    src = ("module nest (x in, y out)\nfloat x[%d];\nfloat y[%d];\ncellprogram (cid : 0 : 2)\nbegin\n"
           "  float a, s, t;\n  int i, j, m, k, o;\n  k := 0;\n  o := 0;\n  for i := %s do begin\n"
           "    s := float(i);\n    %s;\n    %s\n    receive (L, Y, t, 0.0);\n"
           "    send (R, Y, t + s, y[o]);\n    o := o + 1\n  end\nend\n"
           % (nx, n1, b1, inner, "s := s + float(j);" if use_after else ""))
    return src, nx


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1-100", help="a range FIRST-LAST")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    first, _, last = args.seeds.partition("-")
    os.makedirs(args.out, exist_ok=True)
    for seed in range(int(first), int(last or first) + 1):
        src, nx = program(seed)
        base = os.path.join(args.out, "nest%d" % seed)
        with open(base + ".w2", "w") as fh:
            fh.write(src)
        with open(base + ".x", "w") as fh:
            fh.write("".join("%d\n" % (v + 1) for v in range(nx)))


if __name__ == "__main__":
    main()
