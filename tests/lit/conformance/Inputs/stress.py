#!/usr/bin/env python3
"""Writes one hostile-but-legal-looking W2 program to stdout (stress-limits.test)."""
import sys

def prog(body, decls="  int x, y, i;\n", funcs=""):
    return ("module stress (r out)\nint r;\ncellprogram (c : 0 : 0)\nbegin\n" + decls + funcs + body +
            "\n  send (R, X, x, r)\nend\n")

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "parens":
    out = prog("  x := " + "(" * n + "1" + ")" * n + ";")
elif kind == "blocks":
    out = prog("  " + "begin " * n + "x := 1" + " end" * n + ";")
elif kind == "ifs":
    out = prog("  " + "if x > 0 then " * n + "x := 1;")
elif kind == "fors":
    out = prog("  " + "for i := 1 to 2 do " * n + "x := 1;")
elif kind == "nots":
    out = prog("  if " + "not " * n + "x > 1 then x := 1;")
elif kind == "negs":
    out = prog("  x := " + "- " * n + "x;")
elif kind == "sum":
    out = prog("  x := " + " + ".join(["x"] * n) + ";")
elif kind == "block":
    out = prog("".join("  x := x + 1; y := y * x;\n" for _ in range(n)) + "  x := x + y;")
elif kind == "chain":
    f = "".join(f"  function f{i} begin x := x + 1; call f{i - 1} end\n" for i in range(1, n))
    out = prog(f"  call f{n - 1};", funcs="  function f0 begin x := 1 end\n" + f)
elif kind == "array":
    out = prog("  x := 1;", decls=f"  int x, i, a[{n}];\n")
elif kind == "loop":
    out = prog(f"  for i := 0 to {n} do x := x + i * 3 + x mod 7;")
sys.stdout.write(out)
