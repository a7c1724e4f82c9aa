"""Checks what warp-dbg prints for the variables of a software-pipelined loop at
-O2 against a -O0 run of the same program at the same iteration.

usage: swp_values.py WARP_DBG O2_IMAGE O0_IMAGE XS LINE_T LINE_U STEPS

At -O2 the run stops in the kernel (break LINE_T, the second stop), then steps
STEPS times; each stop says "variables show iteration N". The -O0 run stops at
LINE_U of iteration N (after t's assignment, before u's): t must be the same;
u is iteration N's once its assignment landed, before that N-1's (the -O0 value
at LINE_U or at the line after it), or optimized out where neither is in a
register (it must print at some stop). Prints one line a stop."""
import re
import subprocess
import sys


def dbg(warp_dbg, image, xs, commands):
    script = "\n".join(commands) + "\n"
    out = subprocess.run([warp_dbg, "-batch", "-x", "/dev/stdin", image, "--in", "xs=" + xs],
                         input=script, capture_output=True, text=True, timeout=120)
    return out.stdout + out.stderr


def values(text):
    return re.findall(r"^\$\d+ = (.*)$", text, re.M)


def main():
    warp_dbg, o2, o0, xs, line_t, line_u, steps = sys.argv[1:8]
    cmds = ["break " + line_t, "run", "continue", "print t", "print u"]
    for _ in range(int(steps)):
        cmds += ["step", "print t", "print u"]
    text = dbg(warp_dbg, o2, xs, cmds)
    shown = [int(n) for n in re.findall(r"variables show iteration (\d+)", text)][1:]
    vals = values(text)
    if len(shown) != int(steps) + 1 or len(vals) != 2 * len(shown):
        print("FAIL: unexpected -O2 output:\n" + text)
        return 1
    printed = 0
    for k, n in enumerate(shown):
        t2, u2 = vals[2 * k], vals[2 * k + 1]
        ref = values(dbg(warp_dbg, o0, xs, ["break " + line_u, "ignore 1 %d" % n, "run",
                                             "print t", "print u", "next", "print u"]))
        if len(ref) != 3:
            print("FAIL: unexpected -O0 output at iteration %d" % n)
            return 1
        t0, u_before, u_after = ref
        if t2 != t0:
            print("FAIL iteration %d: t = %s at -O2, %s at -O0" % (n, t2, t0))
            return 1
        printed += not u2.startswith("<optimized out")
        if u2 == u_after:
            which = "this iteration's"
        elif u2 == u_before:
            which = "the previous iteration's"
        elif u2.startswith("<optimized out: assigned in the software-pipelined loop"):
            which = "not in a register here"
        else:
            print("FAIL iteration %d: u = %s at -O2, %s or %s at -O0" % (n, u2, u_before, u_after))
            return 1
        print("iteration %d: t = %s as at -O0; u = %s, %s" % (n, t2, u2 if len(u2) < 20 else "-", which))
    if not printed:
        print("FAIL: u printed at no stop")
        return 1
    return 0


sys.exit(main())
