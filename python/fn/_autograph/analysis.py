"""Static analyses over a function body's AST.

* ``bound_names(node)``: the names a statement (or expression) binds in the
  current scope, not descending into nested scopes (functions, lambdas,
  classes, comprehensions), except walrus targets, which bind outside.
* ``read_names(node)``: every name loaded anywhere inside ``node``, nested
  scopes included (a conservative over-approximation of what it reads).
* ``Liveness``: a backward live-variable analysis. It annotates compound
  statements with ``_fn_live_out`` (names live right after the statement)
  and loops with ``_fn_live_header`` (names live at the loop test), and every
  ``If``/``While``/``For`` with ``_fn_modified`` (the names bound anywhere in
  the statement). The control-flow converter reads these annotations to pick
  the outputs of a staged ``cond`` and the loop variables of a ``while_loop``.

Over-approximating liveness is always safe: it can only add outputs, never
lose a value.
"""

import ast

_SCOPE_NODES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def _target_names(target, out):
    """Names bound by an assignment target (Name, Tuple, List, Starred)."""
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _target_names(elt, out)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, out)
    # Attribute and Subscript targets bind no name.
    return out


class _Binder(ast.NodeVisitor):
    """Collects names bound in the current scope."""

    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_FunctionDef(self, node):
        self.names.add(node.name)
        # Decorators and defaults are evaluated in this scope.
        for d in node.decorator_list:
            self.visit(d)
        self.visit(node.args)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arguments(self, node):
        for d in node.defaults:
            self.visit(d)
        for d in node.kw_defaults:
            if d is not None:
                self.visit(d)

    def visit_ClassDef(self, node):
        self.names.add(node.name)
        for d in node.decorator_list + node.bases:
            self.visit(d)
        for k in node.keywords:
            self.visit(k.value)

    def visit_Lambda(self, node):
        self.visit(node.args)

    def _comp(self, node):
        # Only walrus targets escape a comprehension; the first iterable is
        # evaluated in this scope.
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr):
                _target_names(sub.target, self.names)
        self.visit(node.generators[0].iter)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp

    def visit_Import(self, node):
        for alias in node.names:
            name = alias.asname or alias.name.split('.')[0]
            if name != '*':
                self.names.add(name)

    visit_ImportFrom = visit_Import

    # ``except E as e`` binds ``e`` only until the handler ends (Python then
    # deletes it), so it is never state shared with the enclosing code.

    def visit_MatchAs(self, node):
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self.names.add(node.name)

    def visit_MatchMapping(self, node):
        if node.rest:
            self.names.add(node.rest)
        self.generic_visit(node)


def bound_names(node):
    """Names bound by ``node`` (a statement, list of statements or expr)."""
    b = _Binder()
    if isinstance(node, list):
        for n in node:
            b.visit(n)
    else:
        b.visit(node)
    return b.names


def read_names(node):
    """All names loaded anywhere in ``node`` (nested scopes included)."""
    out = set()
    nodes = node if isinstance(node, list) else [node]
    for n in nodes:
        if n is None:
            continue
        for sub in ast.walk(n):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                out.add(sub.id)
            elif isinstance(sub, (ast.AugAssign,)) and isinstance(sub.target, ast.Name):
                out.add(sub.target.id)
    return out


def nested_scope_reads(body):
    """Names read inside nested functions/lambdas/classes of ``body``.

    A closure may read such a name at any later time, so the liveness analysis
    treats them as always live.
    """
    out = set()
    for n in body:
        for sub in ast.walk(n):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                out |= read_names(sub) - _parameter_names(sub)
    return out


def _parameter_names(node):
    """The parameters of a function or lambda (they shadow outer names inside it)."""
    args = getattr(node, 'args', None)
    if not isinstance(args, ast.arguments):
        return set()
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    return names


def declared_names(body, kind):
    """Names declared ``global`` (kind=ast.Global) or ``nonlocal``."""
    out = set()
    for n in body:
        for sub in _walk_scope(n):
            if isinstance(sub, kind):
                out.update(sub.names)
    return out


def _walk_scope(node):
    """Like ast.walk, but does not enter nested scopes."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, _SCOPE_NODES):
                todo.append(child)


def contains(node_or_list, types, stop_at_loops=False):
    """Whether a node of ``types`` occurs in the current scope.

    With ``stop_at_loops``, the bodies of nested loops are not searched (used
    for break/continue, which bind to the innermost loop); a nested loop's
    ``else`` clause still belongs to the outer loop.
    """
    nodes = node_or_list if isinstance(node_or_list, list) else [node_or_list]
    for n in nodes:
        if isinstance(n, types):
            return True
        if isinstance(n, _SCOPE_NODES):
            continue
        if stop_at_loops and isinstance(n, (ast.For, ast.While, ast.AsyncFor)):
            if contains(n.orelse, types, stop_at_loops):
                return True
            continue
        for child in ast.iter_child_nodes(n):
            if contains(child, types, stop_at_loops):
                return True
    return False


def _carried(stmts, live_in):
    """The composite names written in ``stmts`` that staged control flow carries: those whose
    plain names are all live into the statement (an item of an object created inside is not)."""
    return sorted(c for c in composite_writes(stmts) if c.support <= live_in)


class Liveness:
    """Backward live-variable analysis; annotates If/While/For nodes."""

    def __init__(self, always_live=()):
        self.always = frozenset(always_live)

    def run(self, body):
        return self.block(body, frozenset(), self.always)

    def block(self, stmts, out, always):
        live = frozenset(out) | always
        for s in reversed(stmts):
            live = self.stmt(s, live, always) | always
        return live

    def stmt(self, s, out, always):
        m = getattr(self, 'visit_' + type(s).__name__, None)
        if m is not None:
            return m(s, out, always)
        # Simple statement: reads, then binds.
        return frozenset(read_names(s)) | (out - bound_names(s))

    # Compound statements -------------------------------------------------
    def visit_If(self, s, out, always):
        s._fn_live_out = out
        s._fn_modified = bound_names(s.body) | bound_names(s.orelse)
        live_in = frozenset(read_names(s.test)) | self.block(s.body, out, always) | self.block(s.orelse, out, always)
        s._fn_composites = _carried(s.body + s.orelse, live_in)
        s._fn_live_in = live_in
        return live_in

    def visit_While(self, s, out, always):
        s._fn_live_out = out
        s._fn_modified = bound_names(s.body) | bound_names(s.test)
        after = self.block(s.orelse, out, always)
        test_reads = frozenset(read_names(s.test))
        header = test_reads | after
        while True:
            new = test_reads | after | self.block(s.body, header, always)
            if new == header:
                break
            header = new
        s._fn_live_header = header
        s._fn_composites = _carried(s.body, header)
        return header

    def visit_For(self, s, out, always):
        s._fn_live_out = out
        targets = bound_names(s.target)
        s._fn_modified = bound_names(s.body) | targets
        extra = frozenset(read_names(getattr(s, '_fn_extra_test', [])))
        after = self.block(s.orelse, out, always)
        header = extra | after
        while True:
            new = extra | after | (self.block(s.body, header, always) - targets)
            if new == header:
                break
            header = new
        s._fn_live_header = header
        live_in = frozenset(read_names(s.iter)) | header
        s._fn_composites = _carried(s.body, live_in)
        return live_in

    visit_AsyncFor = visit_For

    def visit_With(self, s, out, always):
        targets = set()
        reads = set()
        for item in s.items:
            reads |= read_names(item.context_expr)
            if item.optional_vars is not None:
                targets |= bound_names(item.optional_vars)
                reads |= read_names(item.optional_vars)
        return frozenset(reads) | (self.block(s.body, out, always) - targets)

    visit_AsyncWith = visit_With

    def visit_Try(self, s, out, always):
        fin = self.block(s.finalbody, out, always)
        handlers = frozenset()
        for h in s.handlers:
            hl = self.block(h.body, fin, always)
            if h.name:
                hl = hl - {h.name}
            handlers |= hl | frozenset(read_names(h.type))
        # Anything a handler or the finally clause reads may be read after
        # any statement of the body raised.
        inner = always | handlers | fin
        els = self.block(s.orelse, fin, inner)
        return self.block(s.body, els, inner) | handlers | fin

    visit_TryStar = visit_Try

    def visit_Match(self, s, out, always):
        live = set(read_names(s.subject)) | set(out)
        for case in s.cases:
            live |= read_names(case.pattern) | read_names(case.guard)
            live |= self.block(case.body, out, always)
        return frozenset(live)

    def visit_FunctionDef(self, s, out, always):
        return (out - {s.name}) | frozenset(read_names(s))

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Return(self, s, out, always):
        return frozenset(read_names(s.value)) | always

    def visit_Raise(self, s, out, always):
        return frozenset(read_names(s)) | always

    def visit_AugAssign(self, s, out, always):
        return frozenset(read_names(s)) | out

    def visit_AnnAssign(self, s, out, always):
        if s.value is None:
            return out
        return frozenset(read_names(s.value)) | (out - bound_names(s.target))


# Composite names ----------------------------------------------------------------
class Composite:
    """A qualified name written by assignment: ``d['a']``, ``l[0]``, ``o.x``, ``d[k].y``.

    AutoGraph carries such items through staged control flow like variables (TensorFlow's
    composite symbols). ``container`` is the expression holding the item, ``key`` the item
    (an ast expression) or attribute name (a str), ``support`` the plain names it depends on.
    """

    __slots__ = ('src', 'container', 'key', 'is_attr', 'support')

    def __init__(self, node):
        self.src = ast.unparse(node)
        self.container = node.value
        self.is_attr = isinstance(node, ast.Attribute)
        self.key = node.attr if self.is_attr else node.slice
        self.support = frozenset(n.id for n in ast.walk(node) if isinstance(n, ast.Name))

    def __eq__(self, other):
        return isinstance(other, Composite) and other.src == self.src

    def __hash__(self):
        return hash(self.src)

    def __lt__(self, other):
        return self.src < other.src


def is_qualified(node):
    """Whether ``node`` is a qualified name: a Name, or attributes and subscripts of one whose
    subscripts are constants or qualified names themselves (TensorFlow's QN)."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return is_qualified(node.value)
    if isinstance(node, ast.Subscript):
        s = node.slice
        key_ok = (isinstance(s, ast.Constant) and s.value is not Ellipsis) or is_qualified(s)
        return key_ok and is_qualified(node.value)
    return False


def composite_writes(stmts):
    """The composite names assigned (``=``, ``+=``, ...) anywhere in ``stmts``, nested scopes
    excepted."""
    out = set()
    for s in stmts:
        for sub in _walk_scope(s):
            if isinstance(sub, (ast.Attribute, ast.Subscript)) and isinstance(sub.ctx, ast.Store) and is_qualified(sub):
                out.add(Composite(sub))
    return out
