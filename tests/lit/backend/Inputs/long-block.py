"""Writes a W2 program whose main body is one long straight-line block after
LLVM -O2 (each `if` becomes a select), and the result it must give, computed
on the host in single precision.

usage: long-block.py STATEMENTS PROGRAM.w2 INPUT EXPECTED
"""
import struct
import sys


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def main():
    n, prog, inp, expected = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    x = f32(0.75)
    lines = ["module longblock (xs in, r out)", "float xs[4]; float r;", "cellprogram (c : 0 : 0)",
             "begin", "  float x, y;", "  receive (L, X, x, xs[0]);", "  y := 0.0;"]
    y = 0.0
    for i in range(n):
        c = float((3 * i) % 7)
        if i % 2 == 0:
            lines.append("  if y > 3.0 then y := y - x else y := y + 1.0;")
            y = f32(y + f32(-x)) if y > 3.0 else f32(y + 1.0)
        else:
            lines.append(f"  y := y * x + {c:.1f};")
            y = f32(f32(y * x) + c)
    lines += ["  send (R, X, y, r);", "end"]
    with open(prog, "w") as out:
        out.write("\n".join(lines) + "\n")
    with open(inp, "w") as out:
        out.write("0.75\n0\n0\n0\n")
    with open(expected, "w") as out:
        out.write("%.9g\n" % y)


main()
