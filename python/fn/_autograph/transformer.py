"""AST-to-AST conversion of one function definition.

Pipeline (``transform_function``), each step a small pass:
  1. strip decorators, defaults and annotations (they stay on the function
     object; re-evaluating them would run user code twice);
  2. rewrite zero-argument ``super()`` to ``super(__class__, self)`` (the call
     may end up in a nested function, where the implicit form breaks);
  3. hoist ``global``/``nonlocal`` declarations to the top;
  4. lower ``return``/``break``/``continue`` to flags (``lowering``);
  5. liveness analysis (``analysis``);
  6. control flow to functional form: each ``if``/``while``/``for`` becomes
     nested functions sharing state through ``nonlocal`` plus one call of an
     operator (``fn__.if_stmt``, ``fn__.while_stmt``, ``fn__.for_stmt``);
  7. expressions: calls go through ``fn__.converted_call``; ``and``/``or``,
     ``not`` and ``a if c else b`` become lazy operators.

Every generated node carries the source location of the statement it came
from, so tracebacks point at the user's file and line.
"""

import ast

from fn._autograph import analysis
from fn._autograph import lowering

# The functions the converter writes for a statement's parts (a branch, a loop's body and tests),
# named base or base_N: their frames read as the function the statement is in, as TF's do
# (fn._autograph.errors; fn's C++ frame walker, given them by fn._function.function).
GENERATED_PARTS = (IF_BODY, ELSE_BODY, LOOP_BODY, LOOP_TEST, EXTRA_TEST) = (
    'if_body',
    'else_body',
    'loop_body',
    'loop_test',
    'extra_test',
)

OPS = 'ag__'  # TensorFlow's name for the operators module in converted code

# Calls whose meaning depends on the caller's frame: never wrapped.
_FRAME_CALLS = frozenset(['super', 'locals', 'globals', 'vars', 'eval', 'exec', 'dir'])


class Namer:
    """Fresh names that do not clash with any name used in the function."""

    def __init__(self, node, shared=None):
        self.generated = set()  # names of generated variables: loaded without ``ag__.ld``
        # One set of names per converted top-level function, nested functions included, so
        # generated names are numbered across them (fscope_1, get_state_2, ...) as in TF.
        self.used = shared if shared is not None else set()
        self.used.add(OPS)
        self.user = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                self.user.add(n.id)
            elif isinstance(n, ast.arg):
                self.user.add(n.arg)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.user.add(n.name)
        self.used |= self.user

    def new(self, base):
        name, i = base, 0
        while name in self.used:
            i += 1
            name = '%s_%d' % (base, i)
        self.used.add(name)
        self.generated.add(name)
        return name

    def param(self, base):
        """A parameter name of generated functions (local to each): ``base`` unless the user's
        code uses it."""
        if base not in self.user:
            self.generated.add(base)
            return base
        return self.new(base)

    def like(self, base, model, model_base):
        """``base`` with the numeric suffix of ``model`` (``do_return_3`` for ``fscope_3``,
        as TF numbers a nested function's return variables)."""
        name = base + model[len(model_base) :]
        if name in self.used:
            return self.new(base)
        self.used.add(name)
        self.generated.add(name)
        return name


def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _ops_call(attr, args):
    call = ast.Call(func=ast.Attribute(value=_name(OPS), attr=attr, ctx=ast.Load()), args=args, keywords=[])
    call._fn_generated = True
    return call


def _str_tuple(names):
    return ast.Tuple(elts=[ast.Constant(n if isinstance(n, str) else n.src) for n in names], ctx=ast.Load())


def _plain(names):
    return [n for n in names if isinstance(n, str)]


def _copy(node):
    return ast.parse(ast.unparse(node), mode='eval').body


def _fdef(name, params, body):
    args = ast.arguments(
        posonlyargs=[],
        args=[ast.arg(arg=p) for p in params],
        vararg=None,
        kwonlyargs=[],
        kw_defaults=[],
        kwarg=None,
        defaults=[],
    )
    node = ast.FunctionDef(
        name=name, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None, type_comment=None
    )
    node._fn_generated = True
    return node


def _lambda(expr):
    args = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return ast.Lambda(args=args, body=expr)


def _located(nodes, loc):
    """Puts generated statements on the first line of ``loc``.

    The span is one line: CPython attributes a multi-line method call to its
    last line, and tracebacks should show the statement's first line.
    """
    for n in nodes:
        n.lineno = n.end_lineno = loc.lineno
        n.col_offset = n.end_col_offset = getattr(loc, 'col_offset', 0)
    return nodes


def function_params(fdef):
    a = fdef.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return names


def strip_signature_extras(fdef):
    """Drop decorators, default values and annotations from the def."""
    fdef.decorator_list = []
    fdef.returns = None
    a = fdef.args
    a.defaults = []
    a.kw_defaults = [None] * len(a.kwonlyargs)
    for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if x is not None:
            x.annotation = None


class _SuperRewriter(ast.NodeTransformer):
    def __init__(self, first_arg):
        self.first_arg = first_arg

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == 'super' and not node.args and not node.keywords:
            node.args = [_name('__class__'), _name(self.first_arg)]
        return node

    def visit_FunctionDef(self, node):
        return node  # nested scopes have their own super()

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def _remove_declarations(stmts, found):
    out = []
    for s in stmts:
        if isinstance(s, (ast.Global, ast.Nonlocal)):
            found.append(s)
            continue
        for field in ('body', 'orelse', 'finalbody'):
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                break
            if isinstance(getattr(s, field, None), list):
                setattr(
                    s,
                    field,
                    _remove_declarations(getattr(s, field), found) or ([ast.Pass()] if field == 'body' else []),
                )
        for h in getattr(s, 'handlers', []):
            h.body = _remove_declarations(h.body, found) or [ast.Pass()]
        for c in getattr(s, 'cases', []):
            c.body = _remove_declarations(c.body, found) or [ast.Pass()]
        out.append(s)
    return out


class ControlFlow:
    """Step 6: if/while/for statements to operator calls."""

    def __init__(self, namer, globals_):
        self.namer = namer
        self.globals = globals_
        self.captured = set()  # names declared nonlocal in generated code
        self.defined = set()  # names possibly bound before the statement being converted
        self.top_undefined = set()  # names given an Undefined value by a top-level statement
        # Parameters of generated functions: one name each, as TF writes them.
        self.vars_name = namer.param('vars_')
        self.itr_name = namer.param('itr')

    def block(self, stmts, top=False):
        saved = set(self.defined)
        out = []
        for s in stmts:
            bound = analysis.bound_names(s)
            out.extend(self.stmt(s, top))
            self.defined |= bound
        self.defined = saved
        return out

    def stmt(self, s, top=False):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [s]
        if isinstance(s, ast.Match):
            for case in s.cases:
                case.body = self.block(case.body)
            return [s]
        before = set(self.defined)
        if isinstance(s, (ast.For, ast.While)):
            # A loop's body may read what its previous iteration bound.
            self.defined |= analysis.bound_names(s.body) | analysis.bound_names(getattr(s, 'target', []))
        for field in ('body', 'orelse', 'finalbody'):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, self.block(getattr(s, field)))
        for h in getattr(s, 'handlers', []):
            h.body = self.block(h.body)
        self.defined = before
        if isinstance(s, ast.If):
            return self._with_undefined(self.convert_if(s), s, before, top)
        if isinstance(s, ast.While):
            return self._with_undefined(self.convert_while(s), s, before, top)
        if isinstance(s, ast.For):
            return self._with_undefined(self.convert_for(s), s, before, top)
        return [s]

    def _with_undefined(self, converted, s, before, top):
        """TF's ``n = ag__.Undefined('n')`` before the statement's call, for the names it binds
        that no earlier statement may have bound."""
        names = sorted(n for n in s._fn_modified if isinstance(n, str) and n not in before and n not in self.globals)
        if not names:
            return converted
        if top:
            self.top_undefined.update(names)
        inits = [ast.Assign(targets=[_name(n, True)], value=_ops_call('Undefined', [ast.Constant(n)])) for n in names]
        return converted[:-1] + _located(inits, s) + converted[-1:]

    # Helpers ---------------------------------------------------------------
    def _decls(self, names):
        names = sorted(names)
        loc = [n for n in names if n not in self.globals]
        glo = [n for n in names if n in self.globals]
        self.captured.update(loc)
        out = []
        if loc:
            out.append(ast.Nonlocal(names=loc))
        if glo:
            out.append(ast.Global(names=glo))
        return out

    def _state_fns(self, names):
        """get_state/set_state definitions for ``names`` (or None, None).

        ``names`` holds plain names (str) and composite names (``analysis.Composite``): those
        are read with ``fn__.ldu`` (Undefined when the item does not exist) and written with
        ``fn__.set_item``/``fn__.set_attr`` (which remove the item for an Undefined value).
        """
        get_name = self.namer.new('get_state')
        set_name = self.namer.new('set_state')
        if not names:  # TensorFlow's empty state functions
            get_fn = _fdef(get_name, [], [ast.Return(value=ast.Tuple(elts=[], ctx=ast.Load()))])
            get_fn._fn_state = True
            set_fn = _fdef(set_name, ['block_vars'], [ast.Pass()])
            set_fn._fn_state = True
            return [get_fn, set_fn], _name(get_name), _name(set_name)
        tup = ast.Tuple(elts=[self._load(n) for n in names], ctx=ast.Load())
        get_fn = _fdef(get_name, [], [ast.Return(value=tup)])
        get_fn._fn_state = True
        vars_ = self.vars_name
        simple = [n for n in names if isinstance(n, str)]
        body = self._decls(simple)
        if simple:
            skip = self.namer.new('unused') if len(simple) < len(names) else None
            tmp = [n if isinstance(n, str) else skip for n in names]
            target = ast.Tuple(elts=[_name(n, True) for n in tmp], ctx=ast.Store())
            body.append(ast.Assign(targets=[target], value=_name(vars_)))
        for i, n in enumerate(names):
            if isinstance(n, str):
                continue
            value = ast.Subscript(value=_name(vars_), slice=ast.Constant(i), ctx=ast.Load())
            key = ast.Constant(n.key) if n.is_attr else _copy(n.key)
            call = _ops_call('set_attr' if n.is_attr else 'set_item', [_copy(n.container), key, value])
            body.append(ast.Expr(value=call))
        set_fn = _fdef(set_name, [vars_], body)
        return [get_fn, set_fn], _name(get_name), _name(set_name)

    @staticmethod
    def _load(n):
        if isinstance(n, str):
            return _name(n)
        expr = ast.parse(n.src, mode='eval').body
        return _ops_call('ldu', [_lambda(expr), ast.Constant(n.src)])

    @staticmethod
    def _ordered(s, live):
        """The statement's state: its outputs (live plain names, then carried composite
        names), then the plain names it modifies that are dead after it but live into it (TF's
        input-only names; the others are local to the branch functions, as in TF)."""
        modified = s._fn_modified
        live_in = getattr(s, '_fn_live_in', frozenset())
        outs = sorted(n for n in modified if n in live)
        rest = sorted(n for n in modified if n not in live and n in live_in)
        comps = [c for c in getattr(s, '_fn_composites', ()) if c.support.isdisjoint(modified)]
        return outs + comps + rest, len(outs) + len(comps)

    # Statements ------------------------------------------------------------
    def convert_if(self, s):
        names, n_out = self._ordered(s, s._fn_live_out)
        defs, get_s, set_s = self._state_fns(names)
        body_name = self.namer.new(IF_BODY)
        defs.append(_fdef(body_name, [], self._decls(_plain(names)) + s.body))
        else_name = self.namer.new(ELSE_BODY)  # TF writes an else_body of `pass` when none
        defs.append(_fdef(else_name, [], self._decls(_plain(names)) + (s.orelse or [ast.Pass()])))
        orelse = _name(else_name)
        call = _ops_call(
            'if_stmt', [s.test, _name(body_name), orelse, get_s, set_s, _str_tuple(names), ast.Constant(n_out)]
        )
        return _located(defs + [ast.Expr(value=call)], s)

    @staticmethod
    def _loop_options(s):
        """The ``set_loop_options(...)`` calls at the top level of the loop body, removed from
        it, as a dict expression of their keywords (TensorFlow's loop directive)."""
        keys, values, body = [], [], []
        for st in s.body:
            call = st.value if isinstance(st, ast.Expr) else None
            func = getattr(call, 'func', None)
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if isinstance(call, ast.Call) and name == 'set_loop_options' and not call.args:
                for kw in call.keywords:
                    keys.append(ast.Constant(kw.arg))
                    values.append(kw.value)
                continue
            body.append(st)
        if not keys:
            return ast.Dict(keys=[], values=[])
        s.body = body or [ast.Pass()]
        return ast.Dict(keys=keys, values=values)

    def convert_while(self, s):
        opts = self._loop_options(s)
        names, n_vars = self._ordered(s, s._fn_live_header)
        names = names[:n_vars]  # as TF: names dead after the loop are local to its body
        defs, get_s, set_s = self._state_fns(names)
        body_name = self.namer.new(LOOP_BODY)
        defs.append(_fdef(body_name, [], self._decls(_plain(names)) + s.body))
        test_name = self.namer.new(LOOP_TEST)
        defs.append(_fdef(test_name, [], self._decls(analysis.bound_names(s.test)) + [ast.Return(value=s.test)]))
        call = _ops_call('while_stmt', [_name(test_name), _name(body_name), get_s, set_s, _str_tuple(names), opts])
        return _located(defs + [ast.Expr(value=call)], s)

    def convert_for(self, s):
        opts = self._loop_options(s)
        if isinstance(s.target, ast.Name):
            # The loop target (TensorFlow's iterate_names): over fn.range it starts at `start`.
            opts.keys.append(ast.Constant('iterate_names'))
            opts.values.append(ast.Constant(s.target.id))
        names, n_vars = self._ordered(s, s._fn_live_header)
        names = names[:n_vars]
        defs, get_s, set_s = self._state_fns(names)
        body_name = self.namer.new(LOOP_BODY)
        itr = self.itr_name
        assign = ast.copy_location(ast.Assign(targets=[s.target], value=_name(itr)), s.target)
        body_fn = _fdef(body_name, [itr], self._decls(_plain(names)) + [assign] + s.body)
        body_fn._fn_defined = analysis.bound_names(s.target)
        defs.append(body_fn)
        extra = getattr(s, '_fn_extra_test', [])
        if extra:
            test_name = self.namer.new(EXTRA_TEST)
            expr = extra[0] if len(extra) == 1 else ast.BoolOp(op=ast.And(), values=list(extra))
            defs.append(_fdef(test_name, [], self._decls(_plain(names)) + [ast.Return(value=expr)]))
            extra_fn = _name(test_name)
        else:
            extra_fn = ast.Constant(None)
        call = _ops_call('for_stmt', [s.iter, extra_fn, _name(body_name), get_s, set_s, _str_tuple(names), opts])
        return _located(defs + [ast.Expr(value=call)], s)


class _DeleteToUndefined(ast.NodeTransformer):
    """``del x`` becomes ``x = fn__.Undefined('x')`` (TensorFlow's AutoGraph), so a staged
    branch that deletes a variable leaves it undefined, and a later read raises."""

    def __init__(self, skip):
        self.skip = frozenset(skip)
        self.deleted = set()

    def visit_Delete(self, node):
        names = [t for t in node.targets if isinstance(t, ast.Name) and t.id not in self.skip]
        if not names:
            return node
        out = []
        others = [t for t in node.targets if t not in names]
        if others:
            out.append(ast.copy_location(ast.Delete(targets=others), node))
        for t in names:
            self.deleted.add(t.id)
            out.append(
                ast.copy_location(
                    ast.Assign(targets=[_name(t.id, True)], value=_ops_call('Undefined', [ast.Constant(t.id)])), node
                )
            )
        return out

    def visit_FunctionDef(self, node):
        return node  # nested scopes delete their own names

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef


def _as_list(x):
    return x if isinstance(x, list) else [x]


def _has_scope_breaker(node):
    """Expressions that cannot be moved into a lambda unchanged."""
    for sub in ast.walk(node):
        if isinstance(sub, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return True
    return False


class Expressions(ast.NodeTransformer):
    """Step 7: calls, boolean operators and conditional expressions.

    As in TensorFlow, every load of a user's name becomes ``ag__.ld(name)`` (which raises
    UnboundLocalError for a name still ``ag__.Undefined``, as Python would), and calls go
    through ``ag__.converted_call(f, args, kwargs, fscope)``. Names the conversion generated
    (flags, state parameters) are read plainly.
    """

    def __init__(self, fscope, generated=()):
        self.fscope = fscope
        self.plain = frozenset(generated) | {OPS, fscope, '__class__'}
        self.in_augassign = False

    def visit_FunctionDef(self, node):
        if getattr(node, '_fn_state', False) or getattr(node, '_fn_converted', False):
            return node  # state functions, and nested functions converted on their own
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        # TF marks the user's lambdas as converted code: ``ag__.autograph_artifact(lambda ...)``.
        self.generic_visit(node)
        return ast.copy_location(_ops_call('autograph_artifact', [node]), node)

    def visit_match_case(self, node):
        # Patterns hold names that are not expressions (``case Point(x=0)``): left alone.
        if node.guard is not None:
            node.guard = self.visit(node.guard)
        node.body = [n for s in node.body for n in _as_list(self.visit(s))]
        return node

    def visit_AugAssign(self, node):
        # TF: ``x += v`` becomes ``x = ag__.ld(x)`` then ``x += v`` (v's names read plainly).
        self.in_augassign = True
        try:
            node.value = self.visit(node.value)
        finally:
            self.in_augassign = False
        if isinstance(node.target, ast.Name) and node.target.id not in self.plain:
            pre = ast.Assign(targets=[_name(node.target.id, True)], value=self._ld(_name(node.target.id)))
            return [ast.copy_location(pre, node), node]
        node.target = self.visit(node.target)
        return node

    @staticmethod
    def _ld(node):
        call = _ops_call('ld', [node])
        call._fn_ld = True
        return ast.copy_location(call, node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and not self.in_augassign and node.id not in self.plain:
            return self._ld(node)
        return node

    def visit_Call(self, node):
        if getattr(node, '_fn_ld', False):
            return node
        func = node.func
        if isinstance(func, ast.Name) and func.id == 'print' and not self.in_augassign:
            # TF leaves print calls unconverted (its BUILTIN_FUNCTIONS feature is off).
            self.generic_visit(node)
            return node
        self.generic_visit(node)
        if getattr(node, '_fn_generated', False):
            return node
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in (OPS, self.fscope):
            return node
        if isinstance(func, ast.Call) and getattr(func, '_fn_ld', False):
            inner = func.args[0]
            if isinstance(inner, ast.Name) and inner.id in _FRAME_CALLS:
                node.func = inner  # super(), locals(), ...: called directly, as Python would
                return node
        if isinstance(node.func, ast.Name) and node.func.id in _FRAME_CALLS:
            return node
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        if node.keywords:
            kwargs = ast.Dict(
                keys=[k.arg if k.arg is None else ast.Constant(k.arg) for k in node.keywords],
                values=[k.value for k in node.keywords],
            )
        else:
            kwargs = ast.Constant(None)
        new = _ops_call('converted_call', [node.func, args, kwargs, _name(self.fscope)])
        return ast.copy_location(new, node)

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if _has_scope_breaker(node):
            return node
        attr = 'and_' if isinstance(node.op, ast.And) else 'or_'
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _ops_call(attr, [_lambda(value), _lambda(result)])
        return ast.copy_location(result, node)

    def visit_Compare(self, node):
        """``a < b < c`` becomes ``fn__.and_(lambda: a < b, lambda: b < c)`` (TF's AutoGraph
        does so too), so chained comparisons of tensors are staged."""
        self.generic_visit(node)
        if len(node.ops) < 2 or _has_scope_breaker(node):
            return node
        operands = [node.left] + list(node.comparators)
        parts = [
            ast.Compare(left=operands[k], ops=[op], comparators=[operands[k + 1]]) for k, op in enumerate(node.ops)
        ]
        result = parts[-1]
        for part in reversed(parts[:-1]):
            result = _ops_call('and_', [_lambda(part), _lambda(result)])
        return ast.copy_location(result, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_ops_call('not_', [node.operand]), node)
        return node

    def visit_IfExp(self, node):
        test_src = ast.unparse(node.test)
        self.generic_visit(node)
        if _has_scope_breaker(node):
            return node
        new = _ops_call('if_exp', [node.test, _lambda(node.body), _lambda(node.orelse), ast.Constant(test_src)])
        return ast.copy_location(new, node)


_SIMPLE = (
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.Expr,
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Pass,
    ast.Assert,
)


def _top_level_bindings(body):
    """(kind, names) per top-level statement, taken before conversion."""
    out = []
    for s in body:
        kind = 'simple' if isinstance(s, _SIMPLE) else ('del' if isinstance(s, ast.Delete) else 'compound')
        out.append((kind, analysis.bound_names(s)))
    return out


def _needs_init(bindings, captured):
    """Captured names that may be unbound when a converted statement reads
    its state: all but those bound by straight-line top-level code first."""
    defined, needs = set(), set()
    for kind, names in bindings:
        if kind == 'simple':
            defined |= names
        elif kind == 'del':
            defined -= names
        else:
            needs |= (names & captured) - defined
    return needs


def _is_generator(fdef):
    for sub in analysis._walk_scope(fdef):
        if isinstance(sub, (ast.Yield, ast.YieldFrom, ast.Await)):
            return True
    return False


def _convert_nested_defs(stmts, in_class=False, outer_names=None):
    """Converts the functions (and methods of classes) defined in ``stmts``.

    They are part of the converted code object, so converting them here is
    what lets ``converted_call`` treat them as converted when they are called.
    Generator functions keep their control flow (expressions are still
    converted by the enclosing pass).
    """
    for s in stmts:
        if isinstance(s, ast.FunctionDef):
            if not _is_generator(s):
                transform_function(s, nested=True, method=in_class, outer_names=outer_names)
        elif isinstance(s, ast.ClassDef):
            _convert_nested_defs(s.body, True, outer_names)
        elif not isinstance(s, (ast.AsyncFunctionDef, ast.Lambda)):
            for field in ('body', 'orelse', 'finalbody'):
                if isinstance(getattr(s, field, None), list):
                    _convert_nested_defs(getattr(s, field), in_class, outer_names)
            for h in getattr(s, 'handlers', []):
                _convert_nested_defs(h.body, in_class, outer_names)
            for c in getattr(s, 'cases', []):
                _convert_nested_defs(c.body, in_class, outer_names)


def _options(nested):
    """The ``ag__.ConversionOptions`` TensorFlow writes for a converted function."""
    if nested:
        return ast.Attribute(value=_name(OPS), attr='STD', ctx=ast.Load())
    kw = [
        ast.keyword(arg='recursive', value=ast.Constant(True)),
        ast.keyword(arg='user_requested', value=ast.Constant(True)),
        ast.keyword(arg='optional_features', value=ast.Tuple(elts=[], ctx=ast.Load())),
        ast.keyword(arg='internal_convert_user_code', value=ast.Constant(True)),
    ]
    call = _ops_call('ConversionOptions', [])
    call.keywords = kw
    return call


def _function_scope(fdef, fscope, nested, body):
    """``with ag__.FunctionScope(name, 'fscope', options) as fscope:`` around ``body``."""
    name = 'lambda' if fdef.name == '__fn_lambda__' else fdef.name
    scope = _ops_call('FunctionScope', [ast.Constant(name), ast.Constant(fscope), _options(nested)])
    return ast.With(
        items=[ast.withitem(context_expr=scope, optional_vars=_name(fscope, True))], body=body or [ast.Pass()]
    )


def transform_function(fdef, freevars=(), nested=False, method=False, outer_names=None):
    """Converts ``fdef`` (an ast.FunctionDef) in place and returns it, in the shape of
    TensorFlow's AutoGraph: the body runs in ``with ag__.FunctionScope(...) as fscope:``, a
    function that returns sets ``do_return``/``retval_`` and ends with
    ``return fscope.ret(retval_, do_return)``.

    A top-level function loses its decorators, defaults and annotations
    (they stay on the function object); a ``nested`` one (defined inside the
    converted function) keeps them, as they run when the def executes.
    """
    if not nested:
        strip_signature_extras(fdef)
    params = function_params(fdef)
    namer = Namer(fdef, outer_names if nested else None)
    fscope = namer.new('fscope')
    has_return = analysis.contains(fdef.body, ast.Return)
    if has_return:
        do_return = namer.like('do_return', fscope, 'fscope')
        retval = namer.like('retval_', fscope, 'fscope')

    if (method or '__class__' in freevars) and params and (fdef.args.posonlyargs or fdef.args.args):
        first = (fdef.args.posonlyargs + fdef.args.args)[0].arg
        fdef.body = [_SuperRewriter(first).visit(s) for s in fdef.body]
    _convert_nested_defs(fdef.body, outer_names=namer.used)

    decls = []
    body = _remove_declarations(fdef.body, decls)
    user_globals = analysis.declared_names(decls, ast.Global)
    user_nonlocals = analysis.declared_names(decls, ast.Nonlocal)
    deletes = _DeleteToUndefined(set(params) | user_globals | user_nonlocals)
    body = [n for s in body for n in _as_list(deletes.visit(s))]

    if has_return:
        rl = lowering.ReturnLowering(do_return, retval, OPS, fscope)
        body = rl.lower_function(body, fdef)
    body = lowering.JumpLowering(namer).visit_block(body)

    # Names read by closures, and globals/nonlocals, outlive the function.
    escaping = analysis.nested_scope_reads(body) | user_globals | user_nonlocals
    analysis.Liveness(escaping).run(body)

    bindings = _top_level_bindings(body)
    cf = ControlFlow(namer, user_globals)
    cf.defined = set(params) | user_globals | user_nonlocals | set(freevars)
    if has_return:
        cf.defined |= {do_return, retval}
    body = cf.block(body, top=True)
    skip = set(params) | user_globals | user_nonlocals
    # A top-level statement's own Undefined values precede every binding of those names.
    maybe_undefined = ((_needs_init(bindings, cf.captured) - cf.top_undefined) | deletes.deleted) - skip
    expressions = Expressions(fscope, namer.generated)
    body = [n for s in body for n in _as_list(expressions.visit(s))]

    inits = []
    for n in sorted(maybe_undefined):
        inits.append(ast.Assign(targets=[_name(n, True)], value=_ops_call('Undefined', [ast.Constant(n)])))
    merged = []
    if user_globals:
        merged.append(ast.Global(names=sorted(user_globals)))
    if user_nonlocals:
        merged.append(ast.Nonlocal(names=sorted(user_nonlocals)))
    head = _located(merged + inits, fdef.body[0] if fdef.body else fdef)
    doc = []
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        doc, body = body[:1], body[1:]
    scope = _located([_function_scope(fdef, fscope, nested, head + body)], fdef.body[0] if fdef.body else fdef)
    fdef.body = doc + scope
    if nested:
        fdef.decorator_list.insert(0, ast.Attribute(value=_name(OPS), attr='autograph_artifact', ctx=ast.Load()))
        fdef._fn_converted = True
    else:
        ast.fix_missing_locations(fdef)
    return fdef
