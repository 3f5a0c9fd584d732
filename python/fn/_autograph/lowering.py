"""Lowers ``return``, ``break`` and ``continue`` into flag variables.

Staged control flow (``cond``, ``while_loop``) has no jumps, so before the
control-flow converter runs, every jump becomes an assignment to a flag and
the statements after a possible jump are guarded by ``if not flag:``:

* ``return v`` becomes ``try: do_return = True; retval_ = v`` (TensorFlow's form);
  loops get ``not do_return`` as an extra loop condition, and the function
  ends with ``return fscope.ret(retval_, do_return)``.
* ``break`` becomes ``break_ = True`` (the loop also tests ``not break_``
  before each iteration and its ``else`` clause runs under ``if not break_``).
* ``continue`` becomes ``continue_ = True`` (reset at the top of the body).

When one branch of an ``if`` always jumps and the other does not, the rest of
the block moves into the other branch instead of being guarded, so that
``if c: return a`` followed by ``return b`` stages as one ``cond`` whose two
branches both return. All of this keeps plain-Python semantics exactly,
including the order in which loop conditions and iterators are evaluated.

Loop conditions added here are kept on ``For`` nodes as ``_fn_extra_test`` (a
list of expressions, all of which must hold) and folded into ``While`` tests.
"""

import ast

from fn._autograph import analysis

NEVER, MAYBE, ALWAYS = 0, 1, 2

_LOOPS = (ast.For, ast.While)
_BLOCKS: tuple = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.Match)
if hasattr(ast, 'TryStar'):
    _BLOCKS = _BLOCKS + (ast.TryStar,)


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _assign(id_, value):
    return ast.Assign(targets=[_name(id_, True)], value=value)


def _not(id_):
    return ast.UnaryOp(op=ast.Not(), operand=_name(id_))


def _none_of(flags):
    """The expression ``not f1 and not f2 ...`` for the sorted flags."""
    terms = [_not(f) for f in sorted(flags)]
    return terms[0] if len(terms) == 1 else ast.BoolOp(op=ast.And(), values=terms)


def _guard(test, body, loc):
    node = ast.If(test=test, body=body, orelse=[])
    return ast.copy_location(node, loc)


def _add_loop_test(loop, expr):
    """Make ``expr`` a condition checked before each iteration of ``loop``."""
    if isinstance(loop, ast.While):
        loop.test = ast.copy_location(ast.BoolOp(op=ast.And(), values=[expr, loop.test]), loop.test)
    else:
        loop._fn_extra_test = [expr] + list(getattr(loop, '_fn_extra_test', []))


def return_in_control_flow(body):
    """Whether a ``return`` is nested in an if/loop of this scope."""
    for s in body:
        if isinstance(s, (ast.If, ast.For, ast.While)) and analysis.contains(s, ast.Return):
            return True
        if isinstance(s, _BLOCKS) and not isinstance(s, (ast.If, ast.For, ast.While)):
            for child in _child_blocks(s):
                if return_in_control_flow(child):
                    return True
    return False


def _child_blocks(s):
    if isinstance(s, ast.Match):
        return [c.body for c in s.cases]
    blocks = [s.body, getattr(s, 'orelse', [])]
    if hasattr(s, 'handlers'):
        blocks += [h.body for h in s.handlers] + [s.finalbody]
    return blocks


def _status(stmts, kinds):
    """How surely ``stmts`` jump (a statement of ``kinds``): NEVER, MAYBE or
    ALWAYS, without changing anything. With ``kinds`` = Break/Continue,
    nested loops are not searched (their jumps are their own)."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    loops_own = ast.Return not in kinds
    status = NEVER
    for s in stmts:
        if isinstance(s, kinds):
            return ALWAYS
        if isinstance(s, ast.If):
            b, o = _status(s.body, kinds), _status(s.orelse, kinds)
            st = ALWAYS if b == o == ALWAYS else (MAYBE if (b or o) else NEVER)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            st = _status(s.body, kinds)
        elif isinstance(s, _BLOCKS):
            st = MAYBE if analysis.contains(s, kinds, stop_at_loops=loops_own) else NEVER
        else:
            st = NEVER
        if st == ALWAYS:
            return ALWAYS
        status = max(status, st)
    return status


class ReturnLowering:
    """Replaces ``return`` statements with ``do_return``/``retval_`` flags."""

    def __init__(self, do_return, retval, operators_name, fscope):
        self.do_return = do_return
        self.retval = retval
        self.ops = operators_name
        self.fscope = fscope

    def lower_function(self, body, loc):
        new_body, status = self.block(body)
        init = [
            _assign(self.do_return, ast.Constant(False)),
            _assign(
                self.retval,
                ast.Call(
                    func=ast.Attribute(value=_name(self.ops), attr='UndefinedReturnValue', ctx=ast.Load()),
                    args=[],
                    keywords=[],
                ),
            ),
        ]
        final = ast.Return(
            value=ast.Call(
                func=ast.Attribute(value=_name(self.fscope), attr='ret', ctx=ast.Load()),
                args=[_name(self.retval), _name(self.do_return)],
                keywords=[],
            )
        )
        end = body[-1] if body else loc
        init = [ast.copy_location(n, loc) for n in init]
        return init + new_body + [ast.copy_location(final, end)]

    def _ret(self, s):
        """TF's form: ``try: do_return = True; retval_ = v`` / ``except: do_return = False;
        raise``, so a failing return expression leaves the function not returned."""
        ret = _assign(self.retval, ast.Constant(None))
        handler = ast.ExceptHandler(
            type=None, name=None, body=[_assign(self.do_return, ast.Constant(False)), ast.Raise()]
        )
        node = ast.Try(
            body=[_assign(self.do_return, ast.Constant(True)), ret], handlers=[handler], orelse=[], finalbody=[]
        )
        for n in ast.walk(node):
            if not isinstance(n, ast.expr_context):
                ast.copy_location(n, s)
        if s.value is not None:
            ret.value = s.value
        return [node]

    def block(self, stmts):
        out = []
        for i, s in enumerate(stmts):
            rest = stmts[i + 1 :]
            if isinstance(s, ast.Return):
                out.extend(self._ret(s))
                return out, ALWAYS
            if not (isinstance(s, _BLOCKS) and analysis.contains(s, ast.Return)):
                out.append(s)
                continue
            consumed = False
            if isinstance(s, ast.If):
                sb, so = _status(s.body, ast.Return), _status(s.orelse, ast.Return)
                body, orelse = s.body, s.orelse
                if rest and sb == ALWAYS and so != ALWAYS:
                    orelse, consumed = orelse + rest, True
                elif rest and so == ALWAYS and sb != ALWAYS:
                    body, consumed = body + rest, True
                body, sb = self.block(body)
                orelse, so = self.block(orelse)
                s.body, s.orelse = body or [ast.Pass()], orelse
                status = ALWAYS if sb == so == ALWAYS else MAYBE
            elif isinstance(s, _LOOPS):
                body, _ = self.block(s.body)
                s.body = body or [ast.Pass()]
                _add_loop_test(s, _not(self.do_return))
                if s.orelse:
                    orelse, _ = self.block(s.orelse)
                    s.orelse = [_guard(_not(self.do_return), orelse, s.orelse[0])]
                status = MAYBE
            elif isinstance(s, ast.Match):
                for case in s.cases:
                    case.body, _ = self.block(case.body)
                    case.body = case.body or [ast.Pass()]
                status = MAYBE
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                s.body, status = self.block(s.body)
            else:  # Try
                s.body, _ = self.block(s.body)
                for h in s.handlers:
                    h.body, _ = self.block(h.body)
                    h.body = h.body or [ast.Pass()]
                if s.orelse:
                    orelse, _ = self.block(s.orelse)
                    s.orelse = [_guard(_not(self.do_return), orelse, s.orelse[0])]
                if s.finalbody:
                    s.finalbody, _ = self.block(s.finalbody)
                s.body = s.body or [ast.Pass()]
                status = MAYBE
            out.append(s)
            if consumed or status == ALWAYS:
                return out, status
            if rest:
                rb, rs = self.block(rest)
                out.append(_guard(_not(self.do_return), rb, rest[0]))
                return out, (ALWAYS if rs == ALWAYS else MAYBE)
            return out, status
        return out, NEVER


class JumpLowering:
    """Replaces ``break``/``continue`` with flags, innermost loops first."""

    def __init__(self, namer):
        self.namer = namer

    def visit_block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, _LOOPS):
                s.body = self.visit_block(s.body)
                s.orelse = self.visit_block(s.orelse)
                out.extend(self.lower_loop(s))
                continue
            if isinstance(s, ast.Match):
                for case in s.cases:
                    case.body = self.visit_block(case.body)
            elif isinstance(s, _BLOCKS):
                s.body = self.visit_block(s.body)
                if hasattr(s, 'orelse'):
                    s.orelse = self.visit_block(s.orelse)
                if hasattr(s, 'handlers'):
                    for h in s.handlers:
                        h.body = self.visit_block(h.body)
                    s.finalbody = self.visit_block(s.finalbody)
            out.append(s)
        return out

    def lower_loop(self, loop):
        has_break = analysis.contains(loop.body, ast.Break, stop_at_loops=True)
        has_cont = analysis.contains(loop.body, ast.Continue, stop_at_loops=True)
        if not (has_break or has_cont or loop.orelse):
            return [loop]
        pre, post = [], []
        self.brk = self.namer.new('break_') if has_break else None
        self.cont = self.namer.new('continue_') if has_cont else None
        brk, cont = self.brk, self.cont
        if has_break or has_cont:
            body, _, _ = self.block(loop.body)
        else:
            body = loop.body
        if cont:
            body = [ast.copy_location(_assign(cont, ast.Constant(False)), loop)] + body
        loop.body = body
        if brk:
            pre.append(ast.copy_location(_assign(brk, ast.Constant(False)), loop))
            _add_loop_test(loop, _not(brk))
        if loop.orelse:
            if brk:
                post.append(_guard(_not(brk), loop.orelse, loop.orelse[0]))
            else:
                post.extend(loop.orelse)
            loop.orelse = []
        return pre + [loop] + post

    def _has_jump(self, s):
        return analysis.contains(s, (ast.Break, ast.Continue), stop_at_loops=True)

    def block(self, stmts):
        """Returns (new statements, flags possibly set, always jumps)."""
        out = []
        for i, s in enumerate(stmts):
            rest = stmts[i + 1 :]
            if isinstance(s, (ast.Break, ast.Continue)):
                flag = self.brk if isinstance(s, ast.Break) else self.cont
                out.append(ast.copy_location(_assign(flag, ast.Constant(True)), s))
                return out, {flag}, True
            if isinstance(s, _LOOPS) or not (isinstance(s, _BLOCKS) and self._has_jump(s)):
                out.append(s)
                continue
            consumed = False
            if isinstance(s, ast.If):
                jumps = (ast.Break, ast.Continue)
                ab = _status(s.body, jumps) == ALWAYS
                ao = _status(s.orelse, jumps) == ALWAYS
                body, orelse = s.body, s.orelse
                if rest and ab and not ao:
                    orelse, consumed = orelse + rest, True
                elif rest and ao and not ab:
                    body, consumed = body + rest, True
                body, fb, ab = self.block(body)
                orelse, fo, ao = self.block(orelse)
                s.body, s.orelse = body or [ast.Pass()], orelse
                flags, always = fb | fo, ab and ao
            elif isinstance(s, ast.Match):
                flags, always = set(), False
                for case in s.cases:
                    case.body, f, _ = self.block(case.body)
                    flags |= f
            elif isinstance(s, (ast.With, ast.AsyncWith)):
                s.body, flags, always = self.block(s.body)
            else:  # Try
                s.body, flags, _ = self.block(s.body)
                for h in s.handlers:
                    h.body, f, _ = self.block(h.body)
                    h.body = h.body or [ast.Pass()]
                    flags |= f
                if s.orelse:
                    orelse, f, _ = self.block(s.orelse)
                    guard_flags = set(flags)
                    flags |= f
                    s.orelse = [_guard(_none_of(guard_flags), orelse, s.orelse[0])] if guard_flags else orelse
                if s.finalbody:
                    s.finalbody, f, _ = self.block(s.finalbody)
                    flags |= f
                s.body = s.body or [ast.Pass()]
                always = False
            out.append(s)
            if consumed or always:
                return out, flags, always
            if rest and flags:
                rb, rf, ra = self.block(rest)
                out.append(_guard(_none_of(flags), rb, rest[0]))
                return out, flags | rf, ra
            if rest:
                continue
            return out, flags, always
        return out, set(), False
