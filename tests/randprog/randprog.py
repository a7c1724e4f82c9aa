#!/usr/bin/env python3
"""Random valid W2 programs, run differentially: each program is compiled by warp-cc
at -O0..-O3 for both models, run on warp-sim, and its out arrays compared with those
of the reference interpreter (w2ref.py), which never looks at the compiler.

  randprog.py --bin BUILD/bin [--seed S] [--count N] [--jobs J] [--levels O0,O1,O2,O3]
              [--cpus warp,iwarp] [--save DIR] [--keep-going]
  randprog.py --bin BUILD/bin --check FILE.w2...     (saved findings, reproducers)
  randprog.py --print SEED                           (one program and its inputs)

A program is made from its seed alone (program i of a run has seed S + i), so a
failure is reproduced by its seed. The generator writes what the contract fixes:
loops (constant bounds, bounds received from the host, nested, downto, while),
host-array subscripts such as t[3 * i], several sends on one channel, functions
calling earlier functions, ifs, int and float arithmetic, one to four cells. The
interpreter refuses what the contract leaves open (a subscript out of bounds, a
division by zero, a float overflow, a deadlock, words left in a queue): such a
program is drawn again from the next variant of its seed. Under -mcpu=warp a
program whose I/O cannot be timed at compile time may be rejected (exit 1 with a
diagnostic); it is then run with -fno-flow-control, as tests/conformance does.

A failure is: a compiler or simulator that crashes, dies by a signal, times out,
reports an internal error or a sanitizer finding, rejects the program on iWarp, or
a result that differs from the reference. Each is saved (--save) as
FAIL-SEED.w2 with its input files and the command. Exit status 1 if any failed."""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True   # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import w2ref  # noqa: E402

ARR = 24      # cell arrays
OUTN = 32     # host out arrays
INN = 16      # host in arrays
NLIM = 4      # received loop bounds


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.cells = self.r.choice([1, 1, 1, 2, 3, 4])
        self.funcs = []
        self.inputs = {
            'ina': [self.r.randint(-40, 40) for _ in range(INN)],
            'inb': [self.r.randint(-64, 64) / 8 for _ in range(INN)],
            'n': [self.r.randint(0, 5) for _ in range(NLIM)],
            'hs': [self.r.randint(-9, 9)],
        }
        self.depth = 0

    # ---- expressions -----------------------------------------------------------

    def index(self, scope, size):
        """An int subscript in 0..size-1 for every value its loop variables take."""
        r = self.r
        loops = [(v, lo, hi) for v, lo, hi in scope['loops'] if lo <= hi]
        if loops and r.random() < 0.8:
            v, lo, hi = r.choice(loops)
            for _ in range(6):
                c = r.choice([1, 1, 2, 3, 4, -1, -2])
                lo_v, hi_v = min(c * lo, c * hi), max(c * lo, c * hi)
                if hi_v - lo_v >= size:
                    continue
                d = r.randint(-lo_v, size - 1 - hi_v)
                e = v if c == 1 else '%d * %s' % (c, v) if c > 0 else '%s * %s' % (v, c) if r.random() < 0.5 \
                    else '-%d * %s' % (-c, v)
                if d:
                    e = '%s + %d' % (e, d) if d > 0 else '%s - %d' % (e, -d)
                return e
        if r.random() < 0.2:
            v = r.choice(scope['ints'])
            m = r.randint(2, min(7, (size - 1) // 2))
            return '%s mod %d + %d' % (v, m, m - 1)
        return str(r.randint(0, size - 1))

    def int_atom(self, scope):
        r = self.r
        k = r.random()
        if k < 0.25:
            return str(r.choice([0, 1, 2, 3, 5, 7, 10, 100, 1000, 65535, 2147483000, r.randint(0, 50)]))
        if k < 0.5:
            return r.choice(scope['ints'])
        if k < 0.65 and scope['loops']:
            return r.choice(scope['loops'])[0]
        if k < 0.72:
            return scope['cid']
        if k < 0.8:
            return 'tm[%s][%s]' % (self.index(scope, 6), self.index(scope, 5))
        return 'ta[%s]' % self.index(scope, ARR)

    def float_atom(self, scope):
        r = self.r
        k = r.random()
        if k < 0.25:
            return r.choice(['0.5', '1.5', '0.25', '2.0', '3.0', '1e2', '0.125', '10.0', '1.0'])
        if k < 0.55:
            return r.choice(scope['floats'])
        if k < 0.65:
            return 'fm[%s][%s]' % (self.index(scope, 6), self.index(scope, 5))
        return 'fa[%s]' % self.index(scope, ARR)

    def int_expr(self, scope, d=0):
        r = self.r
        if d > 2 or r.random() < 0.35:
            return self.int_atom(scope)
        k = r.random()
        a = self.int_expr(scope, d + 1)
        if k < 0.45:
            return '%s %s %s' % (a, r.choice(['+', '-', '+', '*']), self.int_expr(scope, d + 1))
        if k < 0.55:
            return '(%s) / %d' % (a, r.choice([2, 3, 4, 7, -3, 16]))
        if k < 0.65:
            return '(%s) mod %d' % (a, r.choice([2, 3, 5, 8, -7]))
        if k < 0.72:
            return '-(%s)' % a
        if k < 0.85:
            return 'int(%s)' % self.float_expr(scope, d + 1)
        return '(%s)' % a

    def float_expr(self, scope, d=0):
        r = self.r
        if d > 2 or r.random() < 0.35:
            return self.float_atom(scope)
        k = r.random()
        a = self.float_expr(scope, d + 1)
        if k < 0.35:
            return '%s %s %s' % (a, r.choice(['+', '-', '*']), self.float_expr(scope, d + 1))
        if k < 0.45:
            return '(%s) / %s' % (a, r.choice(['2.0', '4.0', '0.5', '3.0', '-8.0']))
        if k < 0.6:
            return '%s %s %s' % (a, r.choice(['+', '-', '*']), self.int_atom(scope))
        if k < 0.7:
            return 'float(%s)' % self.int_expr(scope, d + 1)
        if k < 0.78:
            return '-(%s)' % a
        return '(%s)' % a

    def cond(self, scope, d=0):
        r = self.r
        k = r.random()
        if d < 1 and k < 0.2:
            return '(%s) %s (%s)' % (self.cond(scope, d + 1), r.choice(['and', 'or']), self.cond(scope, d + 1))
        if d < 1 and k < 0.28:
            return 'not (%s)' % self.cond(scope, d + 1)
        op = r.choice(['=', '<>', '<', '<=', '>', '>='])
        if r.random() < 0.7:
            return '%s %s %s' % (self.int_expr(scope, 1), op, self.int_expr(scope, 1))
        return '%s %s %s' % (self.float_expr(scope, 1), op, self.float_expr(scope, 1))

    # ---- statements ------------------------------------------------------------

    def assign(self, scope):
        r = self.r
        if r.random() < 0.5:
            lhs = r.choice(scope['ints'] + ['ta[%s]' % self.index(scope, ARR),
                                             'tm[%s][%s]' % (self.index(scope, 6), self.index(scope, 5))])
            return '%s := %s' % (lhs, self.int_expr(scope))
        lhs = r.choice(scope['floats'] + ['fa[%s]' % self.index(scope, ARR),
                                          'fm[%s][%s]' % (self.index(scope, 6), self.index(scope, 5))])
        return '%s := %s' % (lhs, self.float_expr(scope) if r.random() < 0.85 else self.int_expr(scope))

    def host_in(self, scope, typ):
        r = self.r
        if r.random() < 0.1:
            return None
        if typ == 'int':
            return r.choice(['ina[%s]' % self.index(scope, INN), 'ina[%s] + %s' % (self.index(scope, INN), scope['cid']),
                             'hs', '3 * hs - %s' % r.choice(scope['ints'])])
        return r.choice(['inb[%s]' % self.index(scope, INN), 'ina[%s]' % self.index(scope, INN)])

    def host_out(self, scope, typ, ch):
        """An element of the out array of the type and channel: words of two channels
        have no order at the host, so no element is written through both."""
        if self.r.random() < 0.08:
            return None
        arr = {('int', 'X'): 'outa', ('float', 'X'): 'outb', ('int', 'Y'): 'outc', ('float', 'Y'): 'outd'}[typ, ch]
        return '%s[%s]' % (arr, self.index(scope, OUTN))

    def io_unit(self, scope):
        """Balanced on each channel: what a cell receives on a channel it sends on,
        in the same order and of the same types, so every cell of a row can run it."""
        r = self.r
        chans = r.sample(['X', 'Y'], r.choice([1, 1, 2]))
        recvs, sends = [], []
        for ch in chans:
            for _ in range(r.choice([1, 1, 2, 3])):
                typ = r.choice(['int', 'float'])
                var = r.choice(scope['ints'] if typ == 'int' else scope['floats'])
                if r.random() < 0.2:
                    var = '%s[%s]' % ('ta' if typ == 'int' else 'fa', self.index(scope, ARR))
                recvs.append((ch, typ, var))
        for ch in chans:
            for ch2, typ, var in recvs:
                if ch2 != ch:
                    continue
                e = var if r.random() < 0.4 else (self.int_expr(scope) if typ == 'int' else self.float_expr(scope))
                sends.append((ch, typ, e))
        out = []
        order = list(recvs)
        if r.random() < 0.5:   # receives of different channels interleave freely
            r.shuffle(order)
            for ch in chans:
                mine = [x for x in recvs if x[0] == ch]
                pos = [i for i, x in enumerate(order) if x[0] == ch]
                for i, x in zip(pos, mine):
                    order[i] = x
        for ch, typ, var in order:
            h = self.host_in(scope, typ)
            out.append('receive (L, %s, %s%s)' % (ch, var, ', ' + h if h else ''))
        for _ in range(r.randint(0, 2)):
            out.append(self.assign(scope))
        if r.random() < 0.5:
            order = list(sends)
            r.shuffle(order)
            for ch in chans:
                mine = [x for x in sends if x[0] == ch]
                pos = [i for i, x in enumerate(order) if x[0] == ch]
                for i, x in zip(pos, mine):
                    order[i] = x
            sends = order
        for ch, typ, e in sends:
            h = self.host_out(scope, typ, ch)
            out.append('send (R, %s, %s%s)' % (ch, e, ', ' + h if h else ''))
        return 'begin\n%s\nend' % ';\n'.join(out)

    def free_io(self, scope):
        """One cell: the host is on both sides, nothing needs to balance."""
        r = self.r
        d = r.choice(['L', 'R'])
        ch = r.choice(['X', 'Y'])
        typ = r.choice(['int', 'float'])
        if r.random() < 0.5:
            var = r.choice(scope['ints'] if typ == 'int' else scope['floats'])
            h = self.host_in(scope, typ)
            return 'receive (%s, %s, %s%s)' % (d, ch, var, ', ' + h if h else '')
        e = self.int_expr(scope) if typ == 'int' else self.float_expr(scope)
        h = self.host_out(scope, typ, ch)
        return 'send (%s, %s, %s%s)' % (d, ch, e, ', ' + h if h else '')

    def loop(self, scope, budget):
        r = self.r
        free = [v for v in scope['loopvars'] if v not in [x[0] for x in scope['loops']]]
        if not free:
            return self.assign(scope)
        v = r.choice(free)
        k = r.random()
        if k < 0.25 and scope['fn'] is None:
            jv = [x for x in scope['loops'] if x[0] != v and x[2] < NLIM and x[1] >= 0]
            if jv:
                src = 'lim[%s]' % r.choice(jv)[0]
            else:
                src = 'lim[%d]' % r.randint(0, NLIM - 1)
            lo = r.choice([0, 1])
            head = 'for %s := %d to %s do' % (v, lo, src)
            rng = (lo, 5)
        elif k < 0.35:
            hi = r.randint(0, 6)
            lo = r.randint(0, hi)
            head = 'for %s := %d downto %d do' % (v, hi + r.randint(0, 2), lo)
            rng = (lo, hi + 2)
        else:
            lo = r.randint(-2, 3)
            hi = lo + r.randint(-1, 7)
            head = 'for %s := %d to %d do' % (v, lo, hi)
            rng = (lo, hi)
        inner = dict(scope)
        inner['loops'] = scope['loops'] + [(v, rng[0], rng[1])]
        if r.random() < 0.3:
            # straight-line bodies: the loops the software pipeliner takes
            body = [self.assign(inner) for _ in range(r.randint(0, 2))]
            body.insert(r.randint(0, len(body)), self.io_unit(inner) if self.cells > 1 or r.random() < 0.5
                        else self.free_io(inner))
            return '%s\nbegin\n%s\nend' % (head, ';\n'.join(body))
        return '%s\n%s' % (head, self.block(inner, budget))

    def while_loop(self, scope, budget):
        free = [v for v in scope['counters'] if v not in scope['busy']]
        if not free:
            return self.assign(scope)
        w = free[0]
        inner = dict(scope)
        inner['busy'] = scope['busy'] + [w]
        n = self.r.randint(0, 5)
        body = self.stmts(inner, budget)
        return '%s := 0;\nwhile %s < %d do begin\n%s;\n%s := %s + 1\nend' % (w, w, n, body, w, w)

    def stmt(self, scope, budget):
        r = self.r
        k = r.random()
        if budget <= 0:
            return self.assign(scope)
        if k < 0.3:
            return self.assign(scope)
        if k < 0.5:
            return self.loop(scope, budget - 1)
        if k < 0.58:
            return self.while_loop(scope, budget - 1)
        if k < 0.7:
            c = self.cond(scope)
            s1 = self.block(scope, budget - 1)
            if r.random() < 0.5:
                return 'if %s then %s\nelse %s' % (c, s1, self.block(scope, budget - 1))
            return 'if %s then %s' % (c, s1)
        if k < 0.88:
            if self.cells == 1 and r.random() < 0.5:
                return self.free_io(scope)
            return self.io_unit(scope)
        callable_ = [f for f in self.funcs if f not in scope.get('defining', [])]
        if callable_:
            return 'call %s' % r.choice(callable_)
        return self.assign(scope)

    def stmts(self, scope, budget):
        return ';\n'.join(self.stmt(scope, budget) for _ in range(self.r.randint(1, 3)))

    def block(self, scope, budget):
        return 'begin\n%s\nend' % self.stmts(scope, budget)

    def program(self):
        r = self.r
        base = {'ints': ['ia', 'ib', 'ic'], 'floats': ['xa', 'xb', 'xc'], 'loops': [], 'cid': 'cid',
                'loopvars': ['i', 'j', 'k'], 'counters': ['w0', 'w1', 'w2'], 'busy': [], 'fn': None}
        funcs = []
        for fi in range(r.randint(0, 3)):
            name = 'f%d' % fi
            fs = dict(base)
            fs['ints'] = base['ints'] + ['la']
            fs['floats'] = base['floats'] + ['lx']
            fs['loopvars'] = ['p', 'q']
            fs['counters'] = ['lw']
            fs['fn'] = name
            body = self.stmts(fs, 2)
            funcs.append('function %s\nbegin\nint p, q, la, lw;\nfloat lx;\nla := %d;\nlx := %s;\n%s\nend;' % (
                name, r.randint(-5, 5), r.choice(['0.5', '2.0', '-1.5']), body))
            self.funcs.append(name)
        prologue = ('for i := 0 to %d do begin\nreceive (L, X, lim[i], n[i]);\nsend (R, X, lim[i])\nend'
                    % (NLIM - 1))
        body = self.stmts(base, 3) + ';\n' + self.stmts(base, 3)
        # every cell hands its scalars to the host at the end, through the last cell
        tail = ('send (R, X, ia + ib + ic, outa[%d]);\nsend (R, Y, xa + xb + xc, outd[%d])'
                % (OUTN - 1, OUTN - 1)) if self.cells == 1 else \
               ('receive (L, X, k);\nsend (R, X, k + ia + ib + ic, outa[%d]);\n'
                'receive (L, Y, xc);\nsend (R, Y, xc + xa + xb, outd[%d])' % (OUTN - 1, OUTN - 1))
        text = ('/* randprog */\nmodule rp (ina in, inb in, n in, hs in, outa out, outb out, outc out, outd out)\n'
                'int ina[%d];\nfloat inb[%d];\nint n[%d], hs;\nint outa[%d], outc[%d];\nfloat outb[%d], outd[%d];\n'
                'cellprogram (cid : 0 : %d)\nbegin\n'
                'int i, j, k, w0, w1, w2, ia, ib, ic;\nfloat xa, xb, xc;\nint ta[%d], lim[%d], tm[6][5];\nfloat fa[%d], fm[6][5];\n'
                '%s\n%s;\n%s;\n%s\nend\n' % (INN, INN, NLIM, OUTN, OUTN, OUTN, OUTN, self.cells - 1, ARR, NLIM, ARR,
                                             '\n'.join(funcs), prologue, body, tail))
        return text


def make(seed):
    """(text, inputs, expected output, variant) of program `seed`."""
    for variant in range(200):
        g = Gen(seed * 1000 + variant)
        text = g.program()
        try:
            exp = w2ref.run_program(text, g.inputs, 60000)
        except w2ref.RefError:
            continue
        return text, g.inputs, exp, variant
    raise RuntimeError('no valid program for seed %d' % seed)


def fmt(v):
    return v if isinstance(v, str) else '%d' % v if isinstance(v, int) else repr(v)


def write_inputs(d, stem, inputs):
    args = []
    for name, vals in inputs.items():
        p = os.path.join(d, '%s.%s' % (stem, name))
        with open(p, 'w') as f:
            f.write(' '.join(fmt(v) for v in vals) + '\n')
        args += ['--in', '%s=%s' % (name, p)]
    return args


SAN = ('runtime error:', 'AddressSanitizer', 'LeakSanitizer', 'UndefinedBehaviorSanitizer')


EXTRA_FLAGS = []   # --flags: given to every warp-cc run (-verify-each)


def run_one(bindir, d, stem, src, inargs, cpu, level, expected, timeout=120):
    """None if the run matches, else a one-line description of the failure."""
    img = os.path.join(d, '%s.%s.%s.img' % (stem, cpu, level))
    flags = ['-mcpu=' + cpu, '-' + level] + EXTRA_FLAGS
    note = ''
    for attempt in range(2):
        try:
            p = subprocess.run([os.path.join(bindir, 'warp-cc')] + flags + ['-o', img, src],
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return 'warp-cc %s timed out' % ' '.join(flags)
        if any(s in p.stderr for s in SAN):
            return 'warp-cc %s: sanitizer: %s' % (' '.join(flags), p.stderr.strip().splitlines()[0][:200])
        if p.returncode == 0:
            break
        if p.returncode == 1 and cpu == 'warp' and attempt == 0 and p.stderr.startswith(src + ':'):
            flags.append('-fno-flow-control')   # I/O it cannot time: allowed to refuse
            note = ' -fno-flow-control'
            continue
        return 'warp-cc %s exited %d: %s' % (' '.join(flags), p.returncode,
                                             (p.stderr.strip().splitlines() or [''])[0][:200])
    try:
        p = subprocess.run([os.path.join(bindir, 'warp-sim'), img] + inargs, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 'warp-sim timed out (%s)' % ' '.join(flags)
    os.unlink(img)
    if any(s in p.stderr for s in SAN):
        return 'warp-sim (%s): sanitizer: %s' % (' '.join(flags), p.stderr.strip().splitlines()[0][:200])
    if p.returncode != 0:
        return 'warp-sim (%s) exited %d: %s' % (' '.join(flags), p.returncode,
                                                (p.stderr.strip().splitlines() or [''])[0][:200])
    if p.stdout != expected:
        a, b = expected.splitlines(), p.stdout.splitlines()
        i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        return 'wrong result (%s%s): line %d is %r, the reference says %r' % (
            ' '.join(flags[:2]), note, i + 1, b[i] if i < len(b) else None, a[i] if i < len(a) else None)
    return None


def check_program(bindir, name, text, inputs, expected, cpus, levels, save):
    d = tempfile.mkdtemp(prefix='randprog-')
    try:
        src = os.path.join(d, name + '.w2')
        with open(src, 'w') as f:
            f.write(text)
        inargs = write_inputs(d, name, inputs)
        fails = []
        for cpu in cpus:
            for level in levels:
                why = run_one(bindir, d, name, src, inargs, cpu, level, expected)
                if why:
                    fails.append(why)
        if fails and save:
            os.makedirs(save, exist_ok=True)
            shutil.copy(src, os.path.join(save, 'FAIL-%s.w2' % name))
            write_inputs(save, 'FAIL-' + name, inputs)
            with open(os.path.join(save, 'FAIL-%s.txt' % name), 'w') as f:
                f.write('\n'.join(fails) + '\nexpected:\n' + expected)
        return fails
    finally:
        shutil.rmtree(d, ignore_errors=True)


def read_inputs(path):
    stem = path[:-3]
    base = os.path.basename(stem)
    out = {}
    for f in os.listdir(os.path.dirname(path) or '.'):
        if f.startswith(base + '.') and not f.endswith(('.w2', '.txt', '.expected')):
            out[f[len(base) + 1:]] = open(os.path.join(os.path.dirname(path) or '.', f)).read().split()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--bin')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--count', type=int, default=30)
    ap.add_argument('--jobs', type=int, default=1)
    ap.add_argument('--levels', default='O0,O1,O2,O3')
    ap.add_argument('--cpus', default='warp,iwarp')
    ap.add_argument('--save')
    ap.add_argument('--flags', default='', help='more warp-cc flags, e.g. -verify-each')
    ap.add_argument('--print', type=int, dest='print_seed')
    ap.add_argument('--check', nargs='+')
    ap.add_argument('--quiet', action='store_true')
    ap.add_argument('--progress', type=int, default=0, help='print a progress line every N programs')
    a = ap.parse_args()
    if a.print_seed is not None:
        text, inputs, exp, variant = make(a.print_seed)
        print(text)
        for k, v in inputs.items():
            print('/* %s: %s */' % (k, ' '.join(fmt(x) for x in v)))
        print('/* expected:\n%s*/' % exp)
        return 0
    levels, cpus = a.levels.split(','), a.cpus.split(',')
    EXTRA_FLAGS.extend(a.flags.split())
    if a.check:
        bad = 0
        for path in a.check:
            inputs = read_inputs(path)
            text = open(path).read()
            try:
                exp = w2ref.run_program(text, inputs, 10 ** 7)
            except (w2ref.RefError, w2ref.ParseError) as e:
                print('%s: the reference refuses it: %s' % (path, e))
                bad += 1
                continue
            fails = check_program(a.bin, os.path.basename(path)[:-3], text, inputs, exp, cpus, levels, a.save)
            print('%s: %s' % (path, 'ok (%d runs equal to the reference)' % (len(cpus) * len(levels))
                              if not fails else 'FAIL\n  ' + '\n  '.join(fails)))
            bad += bool(fails)
        return 1 if bad else 0

    def job(seed):
        text, inputs, exp, variant = make(seed)
        return seed, variant, check_program(a.bin, 'rp%d' % seed, text, inputs, exp, cpus, levels, a.save)

    failed = runs = done = 0
    variants = 0
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for seed, variant, fails in ex.map(job, range(a.seed, a.seed + a.count)):
            runs += len(cpus) * len(levels)
            variants += variant
            done += 1
            if a.progress and done % a.progress == 0:
                print('progress: %d programs (to seed %d), %d executions, %d failed' % (done, seed, runs, failed),
                      flush=True)
            if fails:
                failed += 1
                print('seed %d: FAIL\n  %s' % (seed, '\n  '.join(fails)), flush=True)
            elif not a.quiet:
                print('seed %d: ok' % seed, flush=True)
    print('randprog: %d programs (seeds %d..%d), %d compile-and-run executions (%s x %s), %d failed, '
          '%d drawn again for the reference' % (a.count, a.seed, a.seed + a.count - 1, runs, '/'.join(cpus),
                                                '/'.join(levels), failed, variants))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
