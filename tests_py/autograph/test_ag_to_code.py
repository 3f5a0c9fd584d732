"""``to_code``: readable converted source with our operator names."""

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
    assert lines[0] == 'def fn__f(x):'
    assert '    def get_state():' in lines
    assert '        return (x,)' in lines
    assert '    def set_state(vars_):' in lines
    assert '        nonlocal x' in lines
    assert '    def loop_body():' in lines
    assert '    def loop_test():' in lines
    assert '        return x > 1' in lines
    assert "    fn__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',), 1, None)" in lines
    assert '        fn__.converted_call(print, (x,), None)' in lines
    assert lines[-1] == '    return x'
    ast.parse(code)


def test_if_elif_else_and_for():
    code = ag.to_code(fizz)
    assert code.count('fn__.if_stmt(') == 2
    assert 'fn__.for_stmt(fn__.converted_call(range, (1, n + 1), None), None, loop_body' in code
    assert 'def loop_body(itr):' in code and '        i = itr' in code
    assert "fn__.if_stmt(i % 3 == 0, if_body_1, else_body_1, None, None, (), 0)"
    assert "fn__.if_stmt(i % 5 == 0, if_body, else_body, None, None, (), 0)" in code in code


def test_early_return_code():
    code = ag.to_code(early)
    assert 'do_return = False' in code
    assert 'retval_ = fn__.UndefinedReturnValue()' in code
    # do_return is dead after the if (the function ends with `return retval_`).
    assert "fn__.if_stmt(x > 0, if_body, else_body, get_state, set_state, " \
           "('retval_', 'do_return'), 1)" in code
    assert code.rstrip().endswith('return retval_')


def test_logical_expressions_code():
    code = ag.to_code(logic)
    assert ('return fn__.or_(lambda: fn__.and_(lambda: a, lambda: fn__.not_(b)), '
            "lambda: fn__.if_exp(a, lambda: 1, lambda: 2, 'a'))") in code


def test_break_code():
    code = ag.to_code(breaks)
    assert 'break_ = False' in code
    assert 'def extra_test():' in code and 'return fn__.not_(break_)' in code
    assert 'fn__.for_stmt(xs, extra_test, loop_body' in code


def test_method_and_python_function_attribute():
    code = ag.to_code(Holder().method)
    assert code.startswith('def fn__method(self, x):')
    assert 'self.seen = x' in code

    class FakeFunction:
        python_function = staticmethod(f)
    assert ag.to_code(FakeFunction()) == ag.to_code(f)


def test_to_code_of_unconvertible_raises():
    ns = {}
    exec('def g(x):\n    return x\n', ns)
    with pytest.raises(ag._converter.ConversionError, match='source code is not available'):
        ag.to_code(ns['g'])
