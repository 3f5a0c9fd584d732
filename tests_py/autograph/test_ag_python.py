"""Converted functions behave exactly like the originals on Python values."""

import functools
import io
import contextlib

import pytest

from fn import autograph as ag


# Cases ------------------------------------------------------------------------------
def nested_loops(n):
    out = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if (i + j) % 2:
                continue
            out.append((i, j))
        else:
            out.append('no-break')
    return out


def while_else(n):
    i = 0
    while i < n:
        i += 1
        if i == 7:
            break
    else:
        return 'exhausted', i
    return 'broke', i


def early_return_nested(xs):
    for row in xs:
        for x in row:
            if x < 0:
                return 'negative', x
            if x == 0:
                break
        print('row done', row)
    return 'all fine'


def return_in_while(n):
    total = 0
    while True:
        n -= 1
        if n < 0:
            return total
        total += n


def elif_chain(x):
    if x % 15 == 0:
        r = 'fizzbuzz'
    elif x % 3 == 0:
        r = 'fizz'
    elif x % 5 == 0:
        r = 'buzz'
    else:
        r = x
    return r


def fizzbuzz_print(n):
    for i in range(1, n + 1):
        if i % 15 == 0:
            print('fizzbuzz')
        elif i % 3 == 0:
            print('fizz')
        elif i % 5 == 0:
            print('buzz')
        else:
            print(i)


def one_branch_define(c):
    if c:
        y = 1
    return y


def falls_off_end(x):
    if x > 0:
        return x


def logic(a, b):
    return (a and b, a or b, not a, a and b or 'z', b if a else -1, [] or a)


def short_circuit(a):
    calls = []

    def side(v):
        calls.append(v)
        return v
    r = side(a) and side('second')
    r2 = side(a) or side('third')
    return r, r2, calls


def iterate_things(d):
    keys = []
    for k in d:
        keys.append(k)
    chars = ''
    for ch in 'abc':
        chars += ch * 2
    pairs = []
    for i, (k, v) in enumerate(sorted(d.items())):
        pairs.append((i, k, v))
    for a, b in zip([1, 2], [3, 4]):
        pairs.append(a * b)
    return keys, chars, pairs


def consume(gen_len):
    it = iter(range(gen_len))
    first = []
    for x in it:
        first.append(x)
        if x == 2:
            break
    return first, list(it)


def generator_source(n):
    def gen():
        for i in range(n):
            yield i * i
    total = 0
    for v in gen():
        total += v
    return total


def with_try(n):
    log = []
    for i in range(n):
        try:
            if i == 2:
                raise ValueError(i)
            log.append(i)
        except ValueError as e:
            log.append('caught %s' % e)
            continue
        finally:
            log.append('finally %d' % i)
        with contextlib.suppress(KeyError):
            if i == 3:
                return log
            {}['missing']
    return log


def try_return_finally(x):
    try:
        if x:
            return 'early'
    finally:
        print('cleanup')
    return 'late'


def comprehension_and_walrus(xs):
    ys = [x * 2 for x in xs if x % 2]
    if (n := len(ys)) > 1:
        ys.append(n)
    total = 0
    while (m := len(ys)) > 0:
        total += ys.pop()
    return ys, total, n, m


def aug_and_del(n):
    x = 0
    for i in range(n):
        x += i
        tmp = i
        del tmp
    return x


def star_args(*args, scale=2, **kwargs):
    out = [a * scale for a in args]
    for k in sorted(kwargs):
        if kwargs[k] is None:
            continue
        out.append((k, kwargs[k]))
    return out


def kwonly(a, b=10, *, c, d=4):
    if a > b:
        return a + c
    return b + d


def posonly(a, /, b):
    return a - b


def nested_def(n):
    def helper(k):
        if k > 2:
            return 'big'
        return 'small'
    return [helper(i) for i in range(n)]


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


counter = 0


def uses_global(n):
    global counter
    for _ in range(n):
        counter += 1
    return counter


def make_nonlocal():
    count = 0

    def bump(n):
        nonlocal count
        while n > 0:
            count += 1
            n -= 1
        return count
    return bump


def loop_else_no_break(xs):
    for x in xs:
        if x == 'stop':
            print('stop seen')
    else:
        print('else ran')
    while False:
        pass
    else:
        print('while else ran')
    return len(xs)


def continue_in_while(n):
    i, odd = 0, []
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        odd.append(i)
    return odd


def docstring_fn(x):
    """A docstring."""
    if x:
        return 1
    return 2


def unbound_read(c):
    if c:
        z = 1
    print('before')
    return z + 1


def elif_returns(x):
    if x > 0 and x < 10:
        return x * 10
    elif not x > -5:
        return x - 100
    return x


def elif_jumps(xs):
    total = 0
    for x in xs:
        if x == 0:
            continue
        elif x < 0:
            break
        total += x
    return total


def nested_elif_jumps(rows):
    out = []
    for row in rows:
        for x in row:
            if x is None:
                continue
            elif x == 'stop':
                break
            elif x == 'end':
                return out
            out.append(x)
        else:
            out.append('|')
    return out


def _has_loop_else(f):
    import ast
    import inspect
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    return any(isinstance(n, (ast.For, ast.While)) and n.orelse for n in ast.walk(tree))


CASES = [
    (elif_returns, (3,)), (elif_returns, (-7,)), (elif_returns, (-2,)), (elif_returns, (50,)),
    (elif_jumps, ([1, 0, 2, -1, 5],)), (elif_jumps, ([0, 3],)),
    (nested_elif_jumps, ([[1, None, 2], ['stop', 3], [4]],)),
    (nested_elif_jumps, ([[1, 'end'], [2]],)),
    (nested_loops, (4,)),
    (while_else, (5,)), (while_else, (10,)),
    (early_return_nested, ([[1, 2], [3, 0, -1], [4]],)),
    (early_return_nested, ([[1, 2], [3, -1]],)),
    (early_return_nested, ([[1], [2]],)),
    (return_in_while, (5,)),
    (elif_chain, (15,)), (elif_chain, (9,)), (elif_chain, (10,)), (elif_chain, (7,)),
    (fizzbuzz_print, (15,)),
    (one_branch_define, (True,)), (one_branch_define, (False,)),
    (falls_off_end, (1,)), (falls_off_end, (-1,)),
    (logic, (0, 5)), (logic, (3, 0)), (logic, ('', [])), (logic, ([1], 'b')),
    (short_circuit, (0,)), (short_circuit, (7,)),
    (iterate_things, ({'b': 2, 'a': 1},)),
    (consume, (6,)),
    (generator_source, (5,)),
    (with_try, (3,)), (with_try, (6,)),
    (try_return_finally, (True,)), (try_return_finally, (False,)),
    (comprehension_and_walrus, ([1, 2, 3, 5],)),
    (comprehension_and_walrus, ([2],)),
    (aug_and_del, (5,)),
    (continue_in_while, (9,)),
    (loop_else_no_break, (['a', 'stop'],)),
    (docstring_fn, (0,)),
    (unbound_read, (True,)), (unbound_read, (False,)),
    (nested_def, (5,)),
    (factorial, (6,)),
]


def _run(f, args, kwargs=None):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            result = ('ok', f(*args, **(kwargs or {})))
        except Exception as e:  # noqa: BLE001
            result = ('raise', type(e))
    return result, buf.getvalue()


@pytest.mark.parametrize('f,args', CASES, ids=lambda v: getattr(v, '__name__', None))
def test_same_behaviour(f, args):
    expected = _run(f, args)
    converted = ag.to_graph(f)
    # TensorFlow's AutoGraph runs functions with a for/else or while/else unconverted.
    assert (converted is f) == _has_loop_else(f)
    assert _run(converted, args) == expected


def test_unbound_read_raises_unboundlocalerror():
    with pytest.raises(UnboundLocalError, match="'z'"):
        ag.to_graph(unbound_read)(False)


def test_signature_features():
    for args, kwargs in [((1, 2, 3), {}), ((1,), {'scale': 3, 'b': None, 'a': 'x'})]:
        assert ag.to_graph(star_args)(*args, **kwargs) == star_args(*args, **kwargs)
    k = ag.to_graph(kwonly)
    assert k(1, c=5) == kwonly(1, c=5) == 14
    assert k(20, c=5) == 25
    assert k(1, 0, c=1, d=0) == 2
    with pytest.raises(TypeError):
        k(1)
    assert ag.to_graph(posonly)(5, b=2) == 3
    assert k.__defaults__ == (10,) and k.__kwdefaults__ == {'d': 4}
    assert k.__name__ == 'kwonly' and k.__qualname__ == kwonly.__qualname__
    assert ag.to_graph(docstring_fn).__doc__ == 'A docstring.'


def test_globals_are_live():
    global counter
    counter = 0
    conv = ag.to_graph(uses_global)
    assert conv(3) == 3
    counter = 100
    assert conv(1) == 101


def test_closures_are_live_cells():
    bump = make_nonlocal()
    conv = ag.to_graph(bump)
    assert conv(2) == 2
    assert bump(1) == 3   # the original sees the converted one's writes
    assert conv(1) == 4

    scale = 2

    def scaled(x):
        if x > 0:
            return x * scale
        return 0
    conv = ag.to_graph(scaled)
    assert conv(3) == 6
    scale = 10  # noqa: F841  (read through the closure cell)
    assert conv(3) == 30


def test_recursion_converts_each_call():
    conv = ag.to_graph(factorial)
    assert conv(5) == 120


class Base:
    def __init__(self, k):
        self.k = k

    def describe(self, x):
        return 'base %d' % x


class Child(Base):
    def describe(self, x):
        parts = []
        for i in range(x):
            if i % 2:
                parts.append(super().describe(i))
        return parts

    @staticmethod
    def twice(v):
        return v * 2 if v else None

    @classmethod
    def build(cls, k):
        if k < 0:
            k = -k
        return cls(k)

    def __call__(self, x):
        while x > self.k:
            x -= self.k
        return x


def test_methods_super_static_classmethod_callable():
    c = Child(3)
    conv = ag.to_graph(c.describe)
    assert conv(4) == c.describe(4) == ['base 1', 'base 3']
    assert conv.__self__ is c
    assert ag.to_graph(Child.twice)(4) == 8
    built = ag.to_graph(Child.build)(-4)
    assert isinstance(built, Child) and built.k == 4
    assert ag.to_graph(c)(10) == c(10) == 1


def my_decorator(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        if kwargs.pop('twice', False):
            return f(*args, **kwargs) * 2
        return f(*args, **kwargs)
    return wrapper


@my_decorator
def decorated(x):
    if x > 0:
        return x
    return -x


def test_decorated_function():
    conv = ag.to_graph(decorated)
    assert conv(-3) == 3
    assert conv(-3, twice=True) == 6
    # The wrapper's own code was converted (not the wrapped function's source).
    assert 'twice' in ag.to_code(decorated)
    # The undecorated function converts too, without re-applying the decorator.
    inner = ag.to_graph(decorated.__wrapped__)
    assert inner(-2) == 2


def test_partial():
    p = functools.partial(kwonly, c=1)
    assert ag.to_graph(p)(50) == 51


def test_lambda_conversion():
    f = lambda x: 'pos' if x > 0 else 'neg'  # noqa: E731
    conv = ag.to_graph(f)
    assert conv is not f
    assert conv(1) == 'pos' and conv(-1) == 'neg'
    assert conv.__name__ == '<lambda>'


def test_already_converted_is_returned_as_is():
    conv = ag.to_graph(elif_chain)
    assert ag.to_graph(conv) is conv
    assert ag.to_graph(elif_chain) is conv  # cached per function object


def test_library_code_not_converted():
    import json
    import numpy as np
    assert ag.to_graph(json.dumps) is json.dumps
    assert ag.to_graph(np.sum) is np.sum
    assert ag.to_graph(len) is len
    assert ag.to_graph(ag.to_code) is ag.to_code


def test_do_not_convert():
    @ag.experimental.do_not_convert
    def plain(x):
        return x and 1
    assert ag.to_graph(plain) is plain

    @ag.experimental.do_not_convert()
    def plain2(x):
        return x
    assert ag.to_graph(plain2) is plain2
    assert not hasattr(ag, "do_not_convert")
