"""fn.autograph's converter on real TensorFlow graph ops (reference interpreter).

Skipped when ~/.cache/fn/tfref/bin/python (TensorFlow 2.21) is not installed. See
_tf_backend_check.py: each guide example is converted by fn.autograph and
traced by tf.function(autograph=False) with tf.cond/tf.while_loop as the
backend, so the printed lines check our conversion against the guide's
output (fizzbuzz traces every branch once, Python lists unroll to 11 and 32
nodes, a dataset loop stays small, ...).
"""

import os
import re
import subprocess
import sys

import pytest

REF_PYTHON = os.environ.get('FN_TF_REFERENCE_PYTHON', os.path.expanduser('~/.cache/fn/tfref/bin/python'))
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '_tf_backend_check.py')

EXPECTED = [
    'Tracing for loop',
    'Tracing fizzbuzz branch',
    'Tracing fizz branch',
    'Tracing buzz branch',
    'Tracing default branch',
    'tf.Tensor([0.31475687 0.33527607 0.3495908 ], shape=(3,), dtype=float32)',
    'train([(1, 1), (1, 1), (1, 1)]) contains 11 nodes in its graph',
    'train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)]) contains 32 nodes in its graph',
    'train(<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, dtype=tf.int32, name=None), TensorSpec(shape=<unknown>, dtype=tf.int32, name=None))>) contains 5 nodes in its graph',
    'tf.Tensor(3, shape=(), dtype=int32)',
    'tf.Tensor(',
    '[[1. 1. 1. 1.]',
    ' [2. 2. 2. 2.]',
    ' [3. 3. 3. 3.]], shape=(3, 4), dtype=float32)',
    '[30, -107, -2, 50]',
    '16 4',
    '6 10',
    "ValueError 'y' must also be initialized in the else branch",
    'tf.Tensor(3, shape=(), dtype=int32)',
    'tf.Tensor(5, shape=(), dtype=int32)',
    '(<tf.Tensor: shape=(), dtype=int32, numpy=6>, <tf.Tensor: shape=(), dtype=int32, numpy=3>)',
    'tracing',
    'tracing',
    'tracing',
    'tracing',
    'tracing',
    'tf.Tensor(1, shape=(), dtype=int32)',
]


# What tf.print writes (to stderr): fizzbuzz twice, then the tanh loop.
EXPECTED_STDERR = [
    '1',
    '2',
    'fizz',
    '4',
    'buzz',
    '1',
    '2',
    'fizz',
    '4',
    'buzz',
    'fizz',
    '7',
    '8',
    'fizz',
    'buzz',
    '11',
    'fizz',
    '13',
    '14',
    'fizzbuzz',
    '16',
    '17',
    'fizz',
    '19',
    'buzz',
    '[0.5 0.6 0.7]',
    '[0.462117136 0.537049592 0.604367733]',
    '[0.431808144 0.490751386 0.540150285]',
    '[0.406831294 0.454812557 0.493101776]',
    '[0.385778874 0.425846875 0.456674784]',
    '[0.367715567 0.40184468 0.427370191]',
    '[0.351991922 0.381526262 0.403121203]',
    '[0.338140875 0.364032209 0.382616431]',
    '[0.325816631 0.348760784 0.364977509]',
]


@pytest.mark.skipif(not os.path.exists(REF_PYTHON), reason='TensorFlow reference not installed')
def test_converter_with_tensorflow_backend():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL='3')
    proc = subprocess.run([REF_PYTHON, SCRIPT], capture_output=True, text=True, env=env,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert len(lines) == len(EXPECTED), proc.stdout
    for got, want in zip(lines, EXPECTED):
        if 'Dataset element_spec' in want:
            # The node count of a dataset loop depends on the TF version.
            want = re.escape(re.sub(r'contains \d+ nodes', 'contains @@ nodes', want))
            assert re.fullmatch(want.replace('@@', r'\d+'), got), got
        else:
            assert got == want
    printed = [ln for ln in proc.stderr.splitlines()
               if not ln.startswith(('WARNING: All log', 'I0000'))]
    assert printed == EXPECTED_STDERR
