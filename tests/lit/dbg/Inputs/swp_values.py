"""Checks what warp-dbg prints for the variables of a software-pipelined loop at
-O2 against a -O0 run of the same program at the same iteration.

usage: swp_values.py WARP_DBG O2_IMAGE O0_IMAGE XS LINE_T LINE_U STEPS

At -O2 the run stops in the kernel (break LINE_T, the second stop), then steps
STEPS times; each stop says "variables show iteration N". The -O0 runs stop at
LINE_U (u's assignment, after t's) of iterations N and N-1 and step over it:
each variable must be iteration N's once its assignment landed, before that
N-1's (its -O0 value after or before its assignment in iteration N). Either may be optimized out at a stop where
no register holds it, but each must print at some stop. Prints one line a stop."""
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
    printed = printed_t = 0
    gone = "<optimized out: assigned in the software-pipelined loop"
    for k, n in enumerate(shown):
        t2, u2 = vals[2 * k], vals[2 * k + 1]
        ref = values(dbg(warp_dbg, o0, xs, ["break " + line_u, "ignore 1 %d" % n, "run",
                                             "print t", "print u", "next", "print u"]))
        prev = values(dbg(warp_dbg, o0, xs, ["break " + line_u, "ignore 1 %d" % (n - 1), "run", "print t"])) if n else ["none"]
        if len(ref) != 3 or len(prev) != 1:
            print("FAIL: unexpected -O0 output at iteration %d" % n)
            return 1
        t0, u_before, u_after = ref
        t_before = prev[0]
        printed_t += not t2.startswith(gone)
        if t2 not in (t0, t_before) and not t2.startswith(gone):
            print("FAIL iteration %d: t = %s at -O2, %s or %s at -O0" % (n, t2, t_before, t0))
            return 1
        printed += not u2.startswith("<optimized out")
        if u2 == u_after:
            which = "this iteration's"
        elif u2 == u_before:
            which = "the previous iteration's"
        elif u2.startswith(gone):
            which = "not in a register here"
        else:
            print("FAIL iteration %d: u = %s at -O2, %s or %s at -O0" % (n, u2, u_before, u_after))
            return 1
        t_which = ("this iteration's" if t2 == t0 else "the previous iteration's" if t2 == t_before
                   else "not in a register here")
        print("iteration %d: t = %s, %s; u = %s, %s" % (n, t2 if len(t2) < 20 else "-", t_which,
                                                      u2 if len(u2) < 20 else "-", which))
    if not printed or not printed_t:
        print("FAIL: t or u printed at no stop")
        return 1
    return 0


sys.exit(main())
