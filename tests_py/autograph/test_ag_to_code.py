"""``to_code``: the converted source, in TensorFlow's shape (``tf__f``, ``ag__`` operators; see
``test_to_code_tf.py`` for exact comparisons with TF)."""

import ast

import pytest

from fn import autograph as ag


def f(x):
    while x > 1:
        print(x)
        x = x // 2
    return x


def fizz(n):
    for i in range(1, n + 1):
        if i % 3 == 0:
            print('fizz')
        elif i % 5 == 0:
            print('buzz')
        else:
            print(i)


def early(x):
    if x > 0:
        return x
    return -x


def logic(a, b):
    return a and not b or (1 if a else 2)


def breaks(xs):
    total = 0
    for x in xs:
        if x < 0:
            break
        total += x
    return total


class Holder:
    def method(self, x):
        if x:
            self.seen = x
        return x


def test_while_loop_code():
    code = ag.to_code(f)
    lines = code.splitlines()
    assert lines[0] == 'def tf__f(x):'
    assert '        def get_state():' in lines
    assert '            return (x,)' in lines
    assert '        def set_state(vars_):' in lines
    assert '            nonlocal x' in lines
    assert '        def loop_body():' in lines
    assert '        def loop_test():' in lines
    assert '            return ag__.ld(x) > 1' in lines
    assert "        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',), {})" in lines
    assert '            ag__.ld(print)(ag__.ld(x))' in lines
    assert lines[-1] == '        return fscope.ret(retval_, do_return)'
    ast.parse(code)


def test_if_elif_else_and_for():
    code = ag.to_code(fizz)
    assert code.count('ag__.if_stmt(') == 2
    assert ('ag__.for_stmt(ag__.converted_call(ag__.ld(range), (1, ag__.ld(n) + 1), None, fscope), None, '
            'loop_body') in code
    assert 'def loop_body(itr):' in code and '            i = itr' in code
    assert "ag__.if_stmt(ag__.ld(i) % 3 == 0, if_body_1, else_body_1, get_state_1, set_state_1, (), 0)" in code
    assert "ag__.if_stmt(ag__.ld(i) % 5 == 0, if_body, else_body, get_state, set_state, (), 0)" in code
    assert "        i = ag__.Undefined('i')" in code


def test_early_return_code():
    code = ag.to_code(early)
    assert 'do_return = False' in code
    assert 'retval_ = ag__.UndefinedReturnValue()' in code
    assert "ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, " \
           "('do_return', 'retval_'), 2)" in code
    assert code.rstrip().endswith('return fscope.ret(retval_, do_return)')


def test_logical_expressions_code():
    code = ag.to_code(logic)
    assert ('retval_ = ag__.or_(lambda: ag__.and_(lambda: ag__.ld(a), lambda: ag__.not_(ag__.ld(b))), '
            "lambda: ag__.if_exp(ag__.ld(a), lambda: 1, lambda: 2, 'a'))") in code


def test_break_code():
    code = ag.to_code(breaks)
    assert 'break_ = False' in code
    assert 'def extra_test():' in code and 'return ag__.not_(break_)' in code
    assert 'ag__.for_stmt(ag__.ld(xs), extra_test, loop_body' in code


def test_method_and_python_function_attribute():
    code = ag.to_code(Holder().method)
    assert code.startswith('def tf__method(self, x):')
    assert 'ag__.ld(self).seen = ag__.ld(x)' in code

    class FakeFunction:
        python_function = staticmethod(f)
    assert ag.to_code(FakeFunction()) == ag.to_code(f)


def test_to_code_of_unconvertible_raises():
    ns = {}
    exec('def g(x):\n    return x\n', ns)
    with pytest.raises(ag._converter.ConversionError, match='source code is not available'):
        ag.to_code(ns['g'])
