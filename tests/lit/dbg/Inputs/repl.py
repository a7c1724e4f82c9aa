#!/usr/bin/env python3
"""Drives warp-dbg's interactive REPL through a pseudo-terminal, as a person at a
keyboard would: tab completion of commands, file names and variables, line
editing (cursor keys, Ctrl-A/Ctrl-E/Ctrl-B), history (Ctrl-P and the up arrow),
an empty line repeating the last command, SIGINT stopping a run, and EOF.

usage: repl.py SPIN_IMAGE WARP_DBG IMAGE [ARGS...]: SPIN_IMAGE runs forever, for
SIGINT; prints the transcripts and exits 1 with a message at the first
expectation that fails (or after a timeout)."""
import os
import pty
import re
import select
import signal
import sys
import time

PROMPT = b"(warp-dbg) "
TIMEOUT = 20.0


class Session:
    def __init__(self, argv):
        env = dict(os.environ, TERM="dumb", INPUTRC="/dev/null", HOME="/nonexistent")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvpe(argv[0], argv, env)
        self.out = b""
        self.seen = 0   # everything before this was matched already

    def read_until(self, pattern, what):
        deadline = time.time() + TIMEOUT
        regex = re.compile(pattern)
        while True:
            m = regex.search(self.out, self.seen)
            if m:
                self.seen = m.end()
                return m
            left = deadline - time.time()
            if left <= 0:
                self.fail("timed out waiting for %s (%r)" % (what, pattern))
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                continue
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            if not data:
                self.fail("warp-dbg ended while waiting for %s" % what)
            # the terminal's carriage returns and bells (an ambiguous completion
            # rings) are not what the test looks for
            self.out += data.replace(b"\r", b"").replace(b"\x07", b"")

    def prompt(self):
        return self.read_until(re.escape(PROMPT), "the prompt")

    def send(self, keys):
        os.write(self.fd, keys)

    def expect(self, text, what=None):
        return self.read_until(re.escape(text), what or repr(text))

    def fail(self, msg):
        sys.stdout.write(clean(self.out))
        sys.stdout.write("\nFAILED: %s\n" % msg)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        sys.exit(1)


def clean(b):
    """The transcript without the terminal's carriage returns and bells."""
    return b.decode("utf-8", "replace").replace("\r", "").replace("\x07", "")


def wait_exit(s):
    deadline = time.time() + TIMEOUT
    while True:
        pid, status = os.waitpid(s.pid, os.WNOHANG)
        if pid:
            return status
        if time.time() > deadline:
            s.fail("warp-dbg did not end")
        try:
            r, _, _ = select.select([s.fd], [], [], 0.1)
            if r:
                s.out += os.read(s.fd, 4096).replace(b"\r", b"")
        except OSError:
            pass


def main():
    spin = sys.argv[1]
    s = Session(sys.argv[2:])
    s.expect(b"Reading symbols from", "the banner")
    s.prompt()

    # Completion of a command, then of a file name (no space after its ':').
    s.send(b"brea\t")
    s.expect(b"break ", "break completed")
    s.send(b"polynom\t")
    s.expect(b"polynomial.w2:", "the file name completed")
    s.send(b"33 cell 3\r")
    s.expect(b"Breakpoint 1 at 0x", "the breakpoint")
    s.prompt()
    s.send(b"run\r")
    s.expect(b"Breakpoint 1, cell 3, poly () at polynomial.w2:33", "the breakpoint hit")
    s.prompt()

    # Line editing: a typo mended with the cursor keys.
    s.send(b"print xn\x02i\r")                     # Ctrl-B back over the n, insert i
    s.expect(b"$1 = -1.20000005", "print xin after Ctrl-B")
    s.prompt()
    s.send(b"rint coeff\x01p\x05 + 1\r")           # Ctrl-A to the start, Ctrl-E to the end
    s.expect(b"$2 = 1.75", "Ctrl-A and Ctrl-E")
    s.prompt()
    s.send(b"print yn\x1b[Di\x1b[C\r")              # left arrow, insert, right arrow
    s.expect(b"$3 = ", "the arrow keys")
    s.prompt()

    # History: Ctrl-P and the up arrow bring back earlier lines.
    s.send(b"\x10\x10\r")                           # two back: print coeff + 1
    s.expect(b"$4 = 1.75", "Ctrl-P twice")
    s.prompt()
    s.send(b"\x1b[A\r")                             # the one just run
    s.expect(b"$5 = 1.75", "the up arrow")
    s.prompt()

    # Completion of variables: a common prefix, then the list on a second tab.
    s.send(b"print coe\t")
    s.expect(b"print coeff", "coe completed to coeff")
    s.send(b"\t\t")
    s.expect(b"coeffs", "both candidates listed")
    s.send(b"\r")
    s.expect(b"$6 = 0.75", "print coeff")
    s.prompt()
    s.send(b"print $r1\t\t")
    s.expect(b"$r10", "registers listed")
    s.send(b"\x15info q\t")                        # Ctrl-U clears the line
    s.expect(b"info queues", "info subcommand completed")
    s.send(b"\r")
    s.expect(b"Cell  Queue", "info queues")
    s.prompt()

    # An empty line repeats the last command.
    s.send(b"stepi\r")
    m = s.read_until(rb"cycle (\d+), cell 3", "stepi")
    first = int(m.group(1))
    s.prompt()
    s.send(b"\r")
    m = s.read_until(rb"cycle (\d+), cell 3", "stepi again")
    if int(m.group(1)) != first + 1:
        s.fail("the empty line did not run stepi again (cycle %d after %d)" % (int(m.group(1)), first))
    s.prompt()

    # Enter after x and list goes on from where they stopped (gdb's rule).
    s.send(b"x/2x &coeff\r")
    m = s.read_until(rb"0x([0-9a-f]+):\t0x[0-9a-f]+\t0x[0-9a-f]+\n", "x/2x")
    first = int(m.group(1), 16)
    s.prompt()
    s.send(b"\r")
    m = s.read_until(rb"0x([0-9a-f]+):\t0x[0-9a-f]+\t0x[0-9a-f]+\n", "x again")
    if int(m.group(1), 16) != first + 8:
        s.fail("the empty line after x did not go on (0x%x after 0x%x)" % (int(m.group(1), 16), first))
    s.prompt()
    s.send(b"list 20\r")
    s.expect(b"24\t", "list 20")
    s.prompt()
    s.send(b"\r")
    s.expect(b"25\t", "the empty line after list: the next lines")
    s.prompt()

    # An error does not end the session.
    s.send(b"frobnicate\r")
    s.expect(b'Undefined command: "frobnicate"', "the error")
    s.prompt()

    # EOF (Ctrl-D) at the prompt ends the session; exit status 0.
    s.send(b"\x04")
    status = wait_exit(s)
    sys.stdout.write(clean(s.out))
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        print("\nFAILED: exit status %r" % status)
        sys.exit(1)

    # SIGINT (Ctrl-C) stops a run that would go on forever; the session goes on.
    s = Session([sys.argv[2], "-q", spin])
    s.prompt()
    s.send(b"run\r")
    s.expect(b"Starting program", "the run")
    time.sleep(0.3)
    os.kill(s.pid, signal.SIGINT)
    s.expect(b"Program interrupted at cycle", "the interrupt")
    s.prompt()
    s.send(b"info cells\r")
    s.expect(b"running", "the cell, still running")
    s.prompt()
    # Ctrl-C at the prompt drops the line typed so far (gdb: Quit).
    s.send(b"print 1")
    s.expect(b"print 1", "the echo")
    time.sleep(0.2)
    s.send(b"\x03")
    s.expect(b"Quit", "Ctrl-C at the prompt")
    s.prompt()
    s.send(b"print 2\r")
    s.expect(b"$1 = 2", "a fresh line after Ctrl-C")
    s.prompt()
    s.send(b"quit\r")
    status = wait_exit(s)
    sys.stdout.write(clean(s.out))
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        print("\nFAILED: exit status %r" % status)
        sys.exit(1)
    print("\nREPL OK")


main()
