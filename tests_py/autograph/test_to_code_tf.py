"""``tf.autograph.to_code`` prints the converted code in TensorFlow 2.21's exact shape, and that
code is what runs (``ag__.FunctionScope``, ``ag__.ld``, ``try``/``except`` around returns,
``fscope.ret``). Run under fn and under TensorFlow; TF orders names in ``nonlocal`` lines by set
iteration (hash-seeded), so those lines are compared sorted."""
from __future__ import annotations

import ast
import re

import pytest

from tfbackend import tf, IS_TF

pytestmark = pytest.mark.tf_oracle


def _norm(code):
    return re.sub(r'nonlocal ([\w, ]+)',
                  lambda m: 'nonlocal ' + ', '.join(sorted(m.group(1).split(', '))), code)


def simple_relu(x):
    if tf.greater(x, 0):
        return x
    else:
        return 0


def f_while(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x


def forrange(n):
    s = 0
    for i in range(n):
        s += i
    return s


def nested(x):
    def inner(y):
        return y * 2
    z = inner(x)
    return z + 1


def early(x):
    if x > 0:
        return x
    return -x


def logic(a, b):
    return a and not b or (1 if a else 2)


def noret(x):
    y = x + 1
    tf.print(y)


def whl(n):
    i = 0
    acc = 1
    while i < n:
        acc = acc * 2
        i += 1
    return acc


def only_live_outputs(x):
    y = 0
    if x > 0:
        tmp = x * 2
        y = tmp + 1
    else:
        y = x
    return y


def fb(x):
    y = 0
    for i in tf.range(x):
        print('Tracing for loop')
        y += i
    return y


def method_holder():
    class Holder:
        def method(self, x):
            if x:
                self.seen = x
            return x
    return Holder()


EXPECTED = {
    'simple_relu': (
        'def tf__simple_relu(x):\n'
        "    with ag__.FunctionScope('simple_relu', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (do_return, retval_)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal retval_, do_return\n'
        '            do_return, retval_ = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal retval_, do_return\n'
        '            try:\n'
        '                do_return = True\n'
        '                retval_ = ag__.ld(x)\n'
        '            except:\n'
        '                do_return = False\n'
        '                raise\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal retval_, do_return\n'
        '            try:\n'
        '                do_return = True\n'
        '                retval_ = 0\n'
        '            except:\n'
        '                do_return = False\n'
        '                raise\n'
        "        ag__.if_stmt(ag__.converted_call(ag__.ld(tf).greater, (ag__.ld(x), 0), None, fscope), if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)\n"
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'f_while': (
        'def tf__f_while(x):\n'
        "    with ag__.FunctionScope('f_while', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (x,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal x\n'
        '            x, = vars_\n'
        '\n'
        '        def loop_body():\n'
        '            nonlocal x\n'
        '            ag__.converted_call(ag__.ld(tf).print, (ag__.ld(x),), None, fscope)\n'
        '            x = ag__.converted_call(ag__.ld(tf).tanh, (ag__.ld(x),), None, fscope)\n'
        '\n'
        '        def loop_test():\n'
        '            return ag__.converted_call(ag__.ld(tf).reduce_sum, (ag__.ld(x),), None, fscope) > 1\n'
        "        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',), {})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(x)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'forrange': (
        'def tf__forrange(n):\n'
        "    with ag__.FunctionScope('forrange', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        s = 0\n'
        '\n'
        '        def get_state():\n'
        '            return (s,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal s\n'
        '            s, = vars_\n'
        '\n'
        '        def loop_body(itr):\n'
        '            nonlocal s\n'
        '            i = itr\n'
        '            s = ag__.ld(s)\n'
        '            s += i\n'
        "        i = ag__.Undefined('i')\n"
        "        ag__.for_stmt(ag__.converted_call(ag__.ld(range), (ag__.ld(n),), None, fscope), None, loop_body, get_state, set_state, ('s',), {'iterate_names': 'i'})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(s)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'nested': (
        'def tf__nested(x):\n'
        "    with ag__.FunctionScope('nested', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        @ag__.autograph_artifact\n'
        '        def inner(y):\n'
        "            with ag__.FunctionScope('inner', 'fscope_1', ag__.STD) as fscope_1:\n"
        '                do_return_1 = False\n'
        '                retval__1 = ag__.UndefinedReturnValue()\n'
        '                try:\n'
        '                    do_return_1 = True\n'
        '                    retval__1 = ag__.ld(y) * 2\n'
        '                except:\n'
        '                    do_return_1 = False\n'
        '                    raise\n'
        '                return fscope_1.ret(retval__1, do_return_1)\n'
        '        z = ag__.converted_call(ag__.ld(inner), (ag__.ld(x),), None, fscope)\n'
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(z) + 1\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'early': (
        'def tf__early(x):\n'
        "    with ag__.FunctionScope('early', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '\n'
        '        def get_state():\n'
        '            return (do_return, retval_)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal retval_, do_return\n'
        '            do_return, retval_ = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal retval_, do_return\n'
        '            try:\n'
        '                do_return = True\n'
        '                retval_ = ag__.ld(x)\n'
        '            except:\n'
        '                do_return = False\n'
        '                raise\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal retval_, do_return\n'
        '            try:\n'
        '                do_return = True\n'
        '                retval_ = -ag__.ld(x)\n'
        '            except:\n'
        '                do_return = False\n'
        '                raise\n'
        "        ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('do_return', 'retval_'), 2)\n"
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'logic': (
        'def tf__logic(a, b):\n'
        "    with ag__.FunctionScope('logic', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        try:\n'
        '            do_return = True\n'
        "            retval_ = ag__.or_(lambda: ag__.and_(lambda: ag__.ld(a), lambda: ag__.not_(ag__.ld(b))), lambda: ag__.if_exp(ag__.ld(a), lambda: 1, lambda: 2, 'a'))\n"
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'noret': (
        'def tf__noret(x):\n'
        "    with ag__.FunctionScope('noret', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        y = ag__.ld(x) + 1\n'
        '        ag__.converted_call(ag__.ld(tf).print, (ag__.ld(y),), None, fscope)\n'
    ),
    'whl': (
        'def tf__whl(n):\n'
        "    with ag__.FunctionScope('whl', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        i = 0\n'
        '        acc = 1\n'
        '\n'
        '        def get_state():\n'
        '            return (acc, i)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal i, acc\n'
        '            acc, i = vars_\n'
        '\n'
        '        def loop_body():\n'
        '            nonlocal i, acc\n'
        '            acc = ag__.ld(acc) * 2\n'
        '            i = ag__.ld(i)\n'
        '            i += 1\n'
        '\n'
        '        def loop_test():\n'
        '            return ag__.ld(i) < ag__.ld(n)\n'
        "        ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('acc', 'i'), {})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(acc)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'only_live_outputs': (
        'def tf__only_live_outputs(x):\n'
        "    with ag__.FunctionScope('only_live_outputs', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        y = 0\n'
        '\n'
        '        def get_state():\n'
        '            return (y,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal y\n'
        '            y, = vars_\n'
        '\n'
        '        def if_body():\n'
        '            nonlocal y\n'
        '            tmp = ag__.ld(x) * 2\n'
        '            y = ag__.ld(tmp) + 1\n'
        '\n'
        '        def else_body():\n'
        '            nonlocal y\n'
        '            y = ag__.ld(x)\n'
        "        tmp = ag__.Undefined('tmp')\n"
        "        ag__.if_stmt(ag__.ld(x) > 0, if_body, else_body, get_state, set_state, ('y',), 1)\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(y)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
    ),
    'fb': (
        'def tf__fb(x):\n'
        "    with ag__.FunctionScope('fb', 'fscope', ag__.ConversionOptions(recursive=True, user_requested=True, optional_features=(), internal_convert_user_code=True)) as fscope:\n"
        '        do_return = False\n'
        '        retval_ = ag__.UndefinedReturnValue()\n'
        '        y = 0\n'
        '\n'
        '        def get_state():\n'
        '            return (y,)\n'
        '\n'
        '        def set_state(vars_):\n'
        '            nonlocal y\n'
        '            y, = vars_\n'
        '\n'
        '        def loop_body(itr):\n'
        '            nonlocal y\n'
        '            i = itr\n'
        "            ag__.ld(print)('Tracing for loop')\n"
        '            y = ag__.ld(y)\n'
        '            y += i\n'
        "        i = ag__.Undefined('i')\n"
        "        ag__.for_stmt(ag__.converted_call(ag__.ld(tf).range, (ag__.ld(x),), None, fscope), None, loop_body, get_state, set_state, ('y',), {'iterate_names': 'i'})\n"
        '        try:\n'
        '            do_return = True\n'
        '            retval_ = ag__.ld(y)\n'
        '        except:\n'
        '            do_return = False\n'
        '            raise\n'
        '        return fscope.ret(retval_, do_return)\n'
    ),
}


@pytest.mark.parametrize('name', sorted(EXPECTED))
def test_to_code_is_tensorflows(name):
    code = tf.autograph.to_code(globals()[name])
    assert _norm(code) == _norm(EXPECTED[name])
    ast.parse(code)


def test_converted_code_runs_as_shown():
    assert int(tf.function(simple_relu)(tf.constant(3))) == 3
    assert int(tf.function(simple_relu)(tf.constant(-3))) == 0
    assert int(tf.function(whl)(tf.constant(5))) == 32
    assert int(tf.function(fb)(tf.constant(5))) == 10
    assert int(tf.function(nested)(tf.constant(2))) == 5
    assert int(tf.function(early)(tf.constant(-2))) == 2
    assert tf.function(noret)(tf.constant(1)) is None


def test_method_code():
    code = tf.autograph.to_code(method_holder().method)
    assert code.startswith('def tf__method(self, x):\n    with ag__.FunctionScope(\'method\', \'fscope\', ')
    assert "    return (ag__.ldu(lambda: self.seen, 'self.seen'),)" in code
    assert "ag__.if_stmt(ag__.ld(x), if_body, else_body, get_state, set_state, ('self.seen',), 1)" in code


def test_to_code_of_a_tf_function():
    code = tf.autograph.to_code(tf.function(f_while).python_function)
    assert code == tf.autograph.to_code(f_while)
