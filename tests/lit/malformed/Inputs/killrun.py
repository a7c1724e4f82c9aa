#!/usr/bin/env python3
"""killrun.py SIGNAL GLOB COMMAND...: starts COMMAND, waits until a file matches
GLOB (the temporary it is writing), sends SIGNAL (a name: TERM, INT, HUP, SEGV...),
and prints how the command ended and what of GLOB is left, for FileCheck:

    ended: killed by SIGTERM
    left: nothing

The command's stderr goes to this script's stderr. Fails if nothing matches GLOB
within 120 seconds or the command ends before."""
import glob
import signal
import subprocess
import sys
import time

sig = getattr(signal, "SIG" + sys.argv[1])
pattern = sys.argv[2]
# As a terminal's ^C would: the command starts with the signal's default action,
# even where this script's parent ignores it (a job started with '&' ignores SIGINT,
# and a program keeps the signals it starts with ignored, as nohup wants).
signal.signal(sig, signal.SIG_DFL)
proc = subprocess.Popen(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
deadline = time.monotonic() + 120
while not glob.glob(pattern):
    if proc.poll() is not None:
        sys.stderr.write(proc.stderr.read().decode(errors="replace"))
        sys.exit("killrun: the command ended (status %d) before %s appeared" % (proc.returncode, pattern))
    if time.monotonic() > deadline:
        proc.kill()
        proc.wait()
        sys.exit("killrun: nothing matched %s within 120 s" % pattern)
    time.sleep(0.01)
proc.send_signal(sig)
try:
    _, err = proc.communicate(timeout=60)
except subprocess.TimeoutExpired:
    proc.kill()
    proc.wait()
    sys.exit("killrun: the command was still running 60 s after SIG%s" % sys.argv[1])
err = err.decode(errors="replace")
sys.stderr.write(err)
if proc.returncode < 0:
    print("ended: killed by %s" % signal.Signals(-proc.returncode).name)
else:
    print("ended: exit %d" % proc.returncode)
left = sorted(glob.glob(pattern))
print("left: " + (" ".join(left) if left else "nothing"))
