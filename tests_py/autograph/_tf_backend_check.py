"""Cross-check: fn.autograph's converter driving real TensorFlow graph ops.

Run by test_ag_tf_backend.py with the reference interpreter (TensorFlow 2.21)
when it is installed. ``fn`` is a stub whose control-flow functions are
TensorFlow's (tf.cond, tf.while_loop, ...); each function is converted by
fn.autograph and traced with ``tf.function(..., autograph=False)``, so only
our conversion is exercised. The output must match the guide's.
"""
import importlib.util
import os
import sys
import types

import tensorflow as tf
HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.join(HERE, '..', '..', 'python')
AG = os.path.join(PY, 'fn', 'autograph')
stub = types.ModuleType('fn'); stub.__path__ = [os.path.join(PY, 'fn')]
for k in ('is_tensor','cond','while_loop','range','cast','int32','float32','shape','data','print',
          'nest','convert_to_tensor','TensorShape','zeros'):
    setattr(stub, k, getattr(tf, k))
stub.logical_and = tf.math.logical_and; stub.logical_or = tf.math.logical_or; stub.logical_not = tf.math.logical_not
sys.modules['fn'] = stub
spec = importlib.util.spec_from_file_location('fn.autograph', AG + '/__init__.py', submodule_search_locations=[AG])
ag = importlib.util.module_from_spec(spec); sys.modules['fn.autograph'] = ag; spec.loader.exec_module(ag)
sys.modules['fn._autograph.backend'].use(stub)   # AutoGraph stages with TF's ops

def function(f, **kw):
    return tf.function(ag.to_graph(f), autograph=False, **kw)

def fizzbuzz(n):
  for i in tf.range(1, n + 1):
    print('Tracing for loop')
    if i % 15 == 0:
      print('Tracing fizzbuzz branch')
      tf.print('fizzbuzz')
    elif i % 3 == 0:
      print('Tracing fizz branch')
      tf.print('fizz')
    elif i % 5 == 0:
      print('Tracing buzz branch')
      tf.print('buzz')
    else:
      print('Tracing default branch')
      tf.print(i)
fb = function(fizzbuzz)
fb(tf.constant(5)); fb(tf.constant(20))

def f(x):
  while tf.reduce_sum(x) > 1:
    tf.print(x)
    x = tf.tanh(x)
  return x
print(function(f)(tf.constant([0.5, 0.6, 0.7])))

def measure_graph_size(f, *args):
  g = f.get_concrete_function(*args).graph
  print("{}({}) contains {} nodes in its graph".format(
      f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))
def train(dataset):
  loss = tf.constant(0)
  for x, y in dataset:
    loss += tf.abs(y - x) # Some dummy computation.
  return loss
train = function(train)
small_data = [(1, 1)] * 3
big_data = [(1, 1)] * 10
measure_graph_size(train, small_data)
measure_graph_size(train, big_data)
measure_graph_size(train, tf.data.Dataset.from_generator(lambda: small_data, (tf.int32, tf.int32)))
print(train(tf.data.Dataset.from_tensor_slices(([1, 2, 3], [3, 3, 3]))))

def rnn_step(inp, state):
  return inp + state
def dynamic_rnn(rnn_step, input_data, initial_state):
  input_data = tf.transpose(input_data, [1, 0, 2])
  max_seq_len = input_data.shape[0]
  states = tf.TensorArray(tf.float32, size=max_seq_len)
  state = initial_state
  for i in tf.range(max_seq_len):
    state = rnn_step(input_data[i], state)
    states = states.write(i, state)
  return tf.transpose(states.stack(), [1, 0, 2])
print(function(dynamic_rnn)(rnn_step, tf.ones([2, 3, 4]), tf.zeros([2, 4]))[0])

def classify(x):
    if x > 0 and x < 10:
        return x * 10
    elif not x > -5:
        return x - 100
    return x
c = function(classify)
print([int(c(tf.constant(v))) for v in (3, -7, -2, 50)])
def odd_sum(n):
    s = 0
    for i in tf.range(n):
        if i > 7:
            break
        if i % 2 == 0:
            continue
        s += i
    return s
o = function(odd_sum)
print(int(o(tf.constant(100))), int(o(tf.constant(4))))
def total(xs):
    s = tf.constant(0)
    for x in xs:
        s += x
    return s
t = function(total)
print(int(t([1, 2, 3])), int(t(tf.constant([1, 2, 3, 4]))))
def bad(x):
    if x > 0:
        y = x
    return y
try: function(bad)(tf.constant(1))
except Exception as e: print(type(e).__name__, e)
def ds_break(ds):
    s = 0
    for x in ds:
        if s > 2: break
        s += x
    return s
print(function(ds_break)(tf.data.Dataset.from_tensor_slices([1, 1, 1, 1, 1])))
def while_no_vars(v):
    while v < 5:
        v.assign_add(1)
    return v.read_value()
v = tf.Variable(0)
print(function(while_no_vars)(v))
def len_range(x):
    s = 0
    for i in range(len(x)):
        s += x[i]
    n = 0
    for j in range(tf.shape(x)[0]):
        n += 1
    return s, n
print(function(len_range)(tf.constant([1, 2, 3])))
def recursive_fn(n):
  if n > 0:
    print('tracing')
    return recursive_fn(n - 1)
  else:
    return 1
recursive_fn = function(recursive_fn)
print(recursive_fn(5))
