"""A reference interpreter of W2 (the contract in docs/w2.md), independent of the
compiler: it parses a program's text and runs every cell of the array, with the
host at both ends, and prints the out arrays as warp-sim does (%d, %.9g, a "NAME:"
line before each when there are several). Floats are IEEE single precision: each
operation is done in double and rounded to single, which gives the correctly
rounded single result for + - * /. Queues hold 8 words, as iWarp's do, so a program
that would block on a full queue deadlocks here too.

What the contract leaves to the machine is refused with RefError instead of
guessed: a subscript outside its array, a division by zero, an infinite or NaN
float, words left in a queue at the end, a deadlock, too many steps. The random
program generator throws such programs away."""
import math
import re
import struct

QUEUE_WORDS = 8


class RefError(Exception):
    pass


class ParseError(Exception):
    pass


def f32(x):
    try:
        return struct.unpack('<f', struct.pack('<f', x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def i32(x):
    x &= 0xFFFFFFFF
    return x - 0x100000000 if x & 0x80000000 else x


def to_int(x):
    if x != x:
        return 0
    if x >= 2147483647.0:
        return 2147483647
    if x <= -2147483648.0:
        return -2147483648
    return int(x)


KEYWORDS = set('module in out cellprogram begin end function call float int for to downto do '
               'while if then else receive send and or not mod'.split())
TOKEN = re.compile(r'\s+|/\*.*?\*/|(?P<num>\d+\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+)'
                   r'|(?P<id>[A-Za-z][A-Za-z0-9_]*)|(?P<op>:=|<>|<=|>=|[-+*/()\[\],;:=<>])', re.S)


def tokenize(text):
    toks, pos = [], 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ParseError('bad character at %d' % pos)
        pos = m.end()
        if m.group('num'):
            s = m.group('num')
            toks.append(('num', float(s) if ('.' in s or 'e' in s or 'E' in s) else int(s), s))
        elif m.group('id'):
            toks.append(('kw' if m.group('id') in KEYWORDS else 'id', m.group('id'), None))
        elif m.group('op'):
            toks.append(('op', m.group('op'), None))
    toks.append(('eof', None, None))
    return toks


class Parser:
    def __init__(self, text):
        self.t = tokenize(text)
        self.p = 0

    def peek(self, k=0):
        return self.t[self.p + k]

    def next(self):
        tok = self.t[self.p]
        self.p += 1
        return tok

    def accept(self, v):
        if self.t[self.p][1] == v and self.t[self.p][0] in ('kw', 'op'):
            self.p += 1
            return True
        return False

    def expect(self, v):
        if not self.accept(v):
            raise ParseError('expected %r, found %r' % (v, self.t[self.p][1]))

    def ident(self):
        tok = self.next()
        if tok[0] != 'id':
            raise ParseError('expected a name, found %r' % (tok[1],))
        return tok[1]

    def program(self):
        self.expect('module')
        self.ident()
        self.expect('(')
        params = []
        while True:
            name = self.ident()
            mode = self.next()[1]
            params.append((name, mode))
            if not self.accept(','):
                break
        self.expect(')')
        host = {}
        while self.peek()[1] in ('int', 'float'):
            for name, typ, dims in self.decl():
                host[name] = (typ, dims)
        self.expect('cellprogram')
        self.expect('(')
        cid = self.ident()
        self.expect(':')
        lo = self.next()[1]
        self.expect(':')
        hi = self.next()[1]
        self.expect(')')
        self.expect('begin')
        funcs, decls = {}, []
        while True:
            if self.accept('function'):
                name = self.ident()
                self.expect('begin')
                locs = []
                while self.peek()[1] in ('int', 'float'):
                    locs += self.decl()
                body = self.stmts()
                self.expect('end')
                self.accept(';')
                funcs[name] = (locs, body)
            elif self.peek()[1] in ('int', 'float'):
                decls += self.decl()
            else:
                break
        body = self.stmts()
        self.expect('end')
        return {'params': params, 'host': host, 'cid': cid, 'cells': (lo, hi), 'funcs': funcs,
                'decls': decls, 'body': body}

    def decl(self):
        typ = self.next()[1]
        items = []
        while True:
            name = self.ident()
            dims = []
            while self.accept('['):
                dims.append(self.next()[1])
                self.expect(']')
            items.append((name, typ, tuple(dims)))
            if not self.accept(','):
                break
        self.expect(';')
        return items

    def stmts(self):
        out = [self.stmt()]
        while self.accept(';'):
            out.append(self.stmt())
        return [s for s in out if s is not None]

    def stmt(self):
        tok = self.peek()
        if tok[0] == 'id':
            lv = self.lvalue()
            self.expect(':=')
            return ('assign', lv, self.expr())
        if tok[1] == 'for':
            self.next()
            var = self.ident()
            self.expect(':=')
            a = self.expr()
            down = self.next()[1] == 'downto'
            b = self.expr()
            self.expect('do')
            return ('for', var, a, down, b, self.stmt())
        if tok[1] == 'while':
            self.next()
            c = self.expr()
            self.expect('do')
            return ('while', c, self.stmt())
        if tok[1] == 'if':
            self.next()
            c = self.expr()
            self.expect('then')
            s1 = self.stmt()
            s2 = self.stmt() if self.accept('else') else None
            return ('if', c, s1, s2)
        if tok[1] == 'begin':
            self.next()
            body = self.stmts()
            self.expect('end')
            return ('block', body)
        if tok[1] in ('receive', 'send'):
            self.next()
            self.expect('(')
            d = self.ident()
            self.expect(',')
            ch = self.ident()
            self.expect(',')
            first = self.lvalue() if tok[1] == 'receive' else self.expr()
            ext = None
            if self.accept(','):
                ext = self.expr() if tok[1] == 'receive' else self.lvalue()
            self.expect(')')
            return (tok[1], d, ch, first, ext)
        if tok[1] == 'call':
            self.next()
            return ('call', self.ident())
        return None

    def lvalue(self):
        name = self.ident()
        subs = []
        while self.accept('['):
            subs.append(self.expr())
            self.expect(']')
        return ('var', name, tuple(subs))

    def expr(self):
        e = self.conj()
        while self.accept('or'):
            e = ('or', e, self.conj())
        return e

    def conj(self):
        e = self.neg()
        while self.accept('and'):
            e = ('and', e, self.neg())
        return e

    def neg(self):
        if self.accept('not'):
            return ('not', self.neg())
        return self.rel()

    def rel(self):
        e = self.sum()
        if self.peek()[0] == 'op' and self.peek()[1] in ('=', '<>', '<', '<=', '>', '>='):
            op = self.next()[1]
            e = ('rel', op, e, self.sum())
        return e

    def sum(self):
        e = self.term()
        while self.peek()[0] == 'op' and self.peek()[1] in ('+', '-'):
            e = ('bin', self.next()[1], e, self.term())
        return e

    def term(self):
        e = self.unary()
        while self.peek()[1] in ('*', '/', 'mod') and self.peek()[0] in ('op', 'kw'):
            e = ('bin', self.next()[1], e, self.unary())
        return e

    def unary(self):
        if self.accept('-'):
            return ('neg', self.unary())
        return self.primary()

    def primary(self):
        tok = self.peek()
        if tok[0] == 'num':
            self.next()
            return ('lit', 'float' if isinstance(tok[1], float) else 'int', f32(tok[1]) if isinstance(tok[1], float) else i32(tok[1]))
        if self.accept('('):
            e = self.expr()
            self.expect(')')
            return e
        if tok[1] in ('float', 'int') and self.peek(1)[1] == '(':
            self.next()
            self.next()
            e = self.expr()
            self.expect(')')
            return ('conv', tok[1], e)
        return self.lvalue()


class Cell:
    """One cell's state; run() is a generator that yields while it waits."""

    def __init__(self, m, prog, cid):
        self.m, self.prog, self.cid = m, prog, cid
        self.vars = {}
        for name, typ, dims in prog['decls']:
            self.vars[name] = m.new_var(typ, dims)

    def lookup(self, scope, name):
        if scope is not None and name in scope:
            return scope[name]
        if name in self.vars:
            return self.vars[name]
        raise RefError('unknown variable ' + name)

    def index(self, scope, var, subs):
        typ, dims, store = var
        if len(subs) != len(dims):
            raise RefError('wrong number of subscripts')
        k = 0
        for s, n in zip(subs, dims):
            i = self.ival(scope, s)
            if not 0 <= i < n:
                raise RefError('subscript %d outside 0..%d' % (i, n - 1))
            k = k * n + i
        return k

    def ival(self, scope, e):
        t, v = self.ev(scope, e)
        if t != 'int':
            raise RefError('an int was expected')
        return v

    def ev(self, scope, e):
        """(type, value) of an arithmetic expression; ('bool', b) of a condition."""
        k = e[0]
        if k == 'lit':
            return e[1], e[2]
        if k == 'var':
            name = e[1]
            if name == self.prog['cid'] and not e[2] and not (scope and name in scope):
                return 'int', self.cid
            if name in self.m.host:
                raise RefError('host variable in an expression')
            var = self.lookup(scope, name)
            return var[0], var[2][self.index(scope, var, e[2])]
        if k == 'conv':
            t, v = self.ev(scope, e[2])
            if e[1] == 'float':
                return 'float', f32(float(v))
            return 'int', to_int(v) if t == 'float' else v
        if k == 'neg':
            t, v = self.ev(scope, e[1])
            return t, (f32(-v) if t == 'float' else i32(-v))
        if k == 'bin':
            op = e[1]
            ta, a = self.ev(scope, e[2])
            tb, b = self.ev(scope, e[3])
            if op == 'mod':
                if b == 0:
                    raise RefError('mod by zero')
                r = abs(a) % abs(b)
                return 'int', i32(-r if a < 0 else r)
            if ta == 'float' or tb == 'float':
                a, b = f32(float(a)), f32(float(b))
                if op == '/':
                    if b == 0:
                        raise RefError('float division by zero')
                    r = a / b
                else:
                    r = a + b if op == '+' else a - b if op == '-' else a * b
                r = f32(r)
                if math.isinf(r) or r != r:
                    raise RefError('float overflow')
                return 'float', r
            if op == '/':
                if b == 0:
                    raise RefError('division by zero')
                q = abs(a) // abs(b)
                return 'int', i32(-q if (a < 0) != (b < 0) else q)
            return 'int', i32(a + b if op == '+' else a - b if op == '-' else a * b)
        if k == 'rel':
            ta, a = self.ev(scope, e[2])
            tb, b = self.ev(scope, e[3])
            op = e[1]
            return 'bool', (a == b if op == '=' else a != b if op == '<>' else a < b if op == '<' else
                            a <= b if op == '<=' else a > b if op == '>' else a >= b)
        if k in ('and', 'or'):
            a = self.cond(scope, e[1])
            b = self.cond(scope, e[2])
            return 'bool', (a and b) if k == 'and' else (a or b)
        if k == 'not':
            return 'bool', not self.cond(scope, e[1])
        raise RefError('unknown expression ' + k)

    def cond(self, scope, e):
        t, v = self.ev(scope, e)
        if t != 'bool':
            raise RefError('a condition was expected')
        return v

    def store(self, scope, lv, t, v):
        var = self.lookup(scope, lv[1])
        k = self.index(scope, var, lv[2])
        if var[0] == 'int':
            if t != 'int':
                raise RefError('float stored into int')
            var[2][k] = v
        else:
            var[2][k] = f32(float(v))

    def run(self):
        yield from self.block(None, self.prog['body'])

    def block(self, scope, stmts):
        for s in stmts:
            yield from self.stmt(scope, s)

    def stmt(self, scope, s):
        self.m.step()
        k = s[0]
        if k == 'assign':
            t, v = self.ev(scope, s[2])
            self.store(scope, s[1], t, v)
        elif k == 'block':
            yield from self.block(scope, s[1])
        elif k == 'if':
            if self.cond(scope, s[1]):
                if s[2] is not None:
                    yield from self.stmt(scope, s[2])
            elif s[3] is not None:
                yield from self.stmt(scope, s[3])
        elif k == 'while':
            while self.cond(scope, s[1]):
                if s[2] is not None:
                    yield from self.stmt(scope, s[2])
                self.m.step()
        elif k == 'for':
            var = ('var', s[1], ())
            a = self.ival(scope, s[2])
            b = self.ival(scope, s[4])
            self.store(scope, var, 'int', a)
            rng = range(a, b - 1, -1) if s[3] else range(a, b + 1)
            for i in rng:
                self.store(scope, var, 'int', i)
                if s[5] is not None:
                    yield from self.stmt(scope, s[5])
                self.m.step()
        elif k == 'call':
            locs, body = self.prog['funcs'][s[1]]
            fscope = {}   # a function sees the globals and its own locals only
            for name, typ, dims in locs:
                fscope[name] = self.m.new_var(typ, dims)
            yield from self.block(fscope, body)
        elif k == 'receive':
            yield from self.receive(scope, s)
        elif k == 'send':
            yield from self.send(scope, s)
        else:
            raise RefError('unknown statement ' + k)

    def faces_host(self, d):
        lo, hi = self.prog['cells']
        return self.cid == (lo if d == 'L' else hi)

    def receive(self, scope, s):
        _, d, ch, lv, ext = s
        if self.faces_host(d):
            if ext is None:
                t, v = 'int', 0
            else:
                t, v = self.host_ev(scope, ext)
        else:
            q = self.m.queue(self.cid - 1 if d == 'L' else self.cid + 1, self.cid, ch)
            while not q:
                yield
            t, v = q.pop(0)
            if self.lookup(scope, lv[1])[0] != t:
                raise RefError('a %s word received into a variable of the other type' % t)
        var = self.lookup(scope, lv[1])
        if var[0] == 'int' and t == 'float':
            raise RefError('a float value received into an int')
        self.store(scope, lv, 'int' if var[0] == 'int' else t, v)

    def send(self, scope, s):
        _, d, ch, e, ext = s
        t, v = self.ev(scope, e)
        if self.faces_host(d):
            if ext is not None:
                typ, dims, store = self.m.host[ext[1]]
                if typ != t:
                    raise RefError('a %s sent into %s host variable' % (t, typ))
                k = self.index(scope, (typ, dims, store), ext[2])
                # Words of one channel reach the host in order; words of two
                # channels (X and Y, or the two ends) have no order the contract
                # fixes ("the host keeps the last value"), and the compiler may send
                # them in one bundle: an element written through two is refused.
                by = self.m.writer.setdefault((ext[1], k), (d, ch))
                if by != (d, ch):
                    raise RefError('host element %s[%d] written through two channels' % (ext[1], k))
                store[k] = v
            return
        q = self.m.queue(self.cid, self.cid - 1 if d == 'L' else self.cid + 1, ch)
        while len(q) >= QUEUE_WORDS:
            yield
        q.append((t, v))

    def host_ev(self, scope, e):
        """A receive's fourth argument: host variables may be read there."""
        if e[0] == 'var' and e[1] in self.m.host:
            typ, dims, store = self.m.host[e[1]]
            return typ, store[self.index(scope, (typ, dims, store), e[2])]
        if e[0] in ('lit',):
            return e[1], e[2]
        if e[0] == 'var':
            return self.ev(scope, e)
        if e[0] == 'neg':
            t, v = self.host_ev(scope, e[1])
            return t, (f32(-v) if t == 'float' else i32(-v))
        if e[0] == 'conv':
            t, v = self.host_ev(scope, e[2])
            return (e[1], f32(float(v))) if e[1] == 'float' else ('int', to_int(v) if t == 'float' else v)
        if e[0] == 'bin':
            ta, a = self.host_ev(scope, e[2])
            tb, b = self.host_ev(scope, e[3])
            return self.ev(scope, ('bin', e[1], ('lit', ta, a), ('lit', tb, b)))
        raise RefError('unsupported fourth argument')


class Machine:
    def __init__(self, prog, inputs, max_steps):
        self.prog = prog
        self.max_steps = max_steps
        self.steps = 0
        self.queues = {}
        self.writer = {}      # (host array, element) -> the (side, channel) that wrote it
        self.host = {}
        for name, mode in prog['params']:
            typ, dims = prog['host'][name]
            var = self.new_var(typ, dims)
            if mode == 'in':
                vals = inputs.get(name)
                n = len(var[2])
                if vals is None or len(vals) < n:
                    raise RefError('input %s needs %d numbers' % (name, n))
                for i in range(n):
                    var[2][i] = i32(int(vals[i])) if typ == 'int' else f32(float(vals[i]))
            self.host[name] = var

    def new_var(self, typ, dims):
        n = 1
        for d in dims:
            n *= d
        return (typ, dims, [0 if typ == 'int' else 0.0] * n)

    def queue(self, src, dst, ch):
        return self.queues.setdefault((src, dst, ch), [])

    def step(self):
        self.steps += 1
        if self.steps > self.max_steps:
            raise RefError('too many steps')

    def run(self):
        lo, hi = self.prog['cells']
        cells = [Cell(self, self.prog, c).run() for c in range(lo, hi + 1)]
        live = list(cells)
        while live:
            before = (self.steps, sum(len(q) for q in self.queues.values()),
                      tuple(sorted((k, len(q)) for k, q in self.queues.items())))
            still = []
            for g in live:
                try:
                    next(g)
                    still.append(g)
                except StopIteration:
                    pass
            after = (self.steps, sum(len(q) for q in self.queues.values()),
                     tuple(sorted((k, len(q)) for k, q in self.queues.items())))
            if len(still) == len(live) and before == after:
                raise RefError('deadlock')
            live = still
        if any(self.queues.values()):
            raise RefError('words left in a queue')

    def output(self):
        outs = [name for name, mode in self.prog['params'] if mode == 'out']
        lines = []
        for name in outs:
            if len(outs) > 1:
                lines.append(name + ':')
            typ, dims, store = self.host[name]
            for v in store:
                lines.append('%d' % v if typ == 'int' else ('nan' if v != v else '%.9g' % v))
        return '\n'.join(lines) + '\n'


def run_program(text, inputs, max_steps=200000):
    """The out arrays as warp-sim prints them. inputs: name -> list of numbers."""
    prog = Parser(text).program()
    m = Machine(prog, inputs, max_steps)
    m.run()
    return m.output()
