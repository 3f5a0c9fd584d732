"""Guide cells for SPEC sections 3-5 (registered into ``snippets.EXAMPLES``).

Import ``snippets``, not this module.
"""
from __future__ import annotations

from snippets import H, _add

# 3. AutoGraph
_add("3.1", "while_loop", "A while loop on a tensor", ["""
    # A simple loop

    @tf.function
    def f(x):
      while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
      return x

    f(tf.random.uniform([5]))
    """])
_add("3.2", "to_code", "The converted code", ["""
    print(tf.autograph.to_code(f.python_function))
    """], needs=("3.1",))
_add("3.3", "fizzbuzz", "Conditionals", ["""
    @tf.function
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

    fizzbuzz(tf.constant(5))
    fizzbuzz(tf.constant(20))
    """])
_add("3.4", "python_data_loops", "Looping over Python data", ["""
    def measure_graph_size(f, *args):
      g = f.get_concrete_function(*args).graph
      print("{}({}) contains {} nodes in its graph".format(
          f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))

    @tf.function
    def train(dataset):
      loss = tf.constant(0)
      for x, y in dataset:
        loss += tf.abs(y - x) # Some dummy computation.
      return loss

    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    measure_graph_size(train, small_data)
    measure_graph_size(train, big_data)

    measure_graph_size(train, tf.data.Dataset.from_generator(
        lambda: small_data, (tf.int32, tf.int32)))
    measure_graph_size(train, tf.data.Dataset.from_generator(
        lambda: big_data, (tf.int32, tf.int32)))
    """])
_add("3.5", "tensor_array", "Accumulating values with a TensorArray", ["""
    batch_size = 2
    seq_len = 3
    feature_size = 4

    def rnn_step(inp, state):
      return inp + state

    @tf.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
      # [batch, time, features] -> [time, batch, features]
      input_data = tf.transpose(input_data, [1, 0, 2])
      max_seq_len = input_data.shape[0]

      states = tf.TensorArray(tf.float32, size=max_seq_len)
      state = initial_state
      for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
      return tf.transpose(states.stack(), [1, 0, 2])

    dynamic_rnn(rnn_step,
                tf.random.uniform([batch_size, seq_len, feature_size]),
                tf.zeros([batch_size, feature_size]))
    """], probe=["""
    print(dynamic_rnn(rnn_step,
                      tf.reshape(tf.range(24.0), [batch_size, seq_len, feature_size]),
                      tf.ones([batch_size, feature_size])))
    """])

# 4. Limitations
_add("4.1", "side_effects", "Python side effects run only while tracing", ["""
    @tf.function
    def f(x):
      print("Traced with", x)
      tf.print("Executed with", x)

    f(1)
    f(1)
    f(2)
    """, """
    @tf.py_function(Tout=tf.float32)
    def py_plus(x, y):
      print('Executing eagerly.')
      return x + y

    @tf.function
    def tf_wrapper(x, y):
      print('Tracing.')
      return py_plus(x, y)

    tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy()
    """, """
    tf_wrapper(tf.constant(1.0), tf.constant(2.0)).numpy()
    """])
_add("4.2", "external_list", "Changing globals and free variables", ["""
    external_list = []

    @tf.function
    def side_effect(x):
      print('Python side effect')
      external_list.append(x)

    side_effect(1)
    side_effect(1)
    side_effect(1)
    # The list append only happened once!
    assert len(external_list) == 1
    """])
_add("4.3", "init_scope", "A Python counter guarding an op; tf.init_scope", ["""
    class Model(tf.Module):
      def __init__(self):
        self.v = tf.Variable(0)
        self.counter = 0

      @tf.function
      def __call__(self):
        if self.counter == 0:
          # A python side-effect
          self.counter += 1
          self.v.assign_add(1)

        return self.v

    m = Model()
    for n in range(3):
      print(m().numpy()) # prints 1, 2, 3
    """, """
    class Model(tf.Module):
      def __init__(self):
        self.v = tf.Variable(0)
        self.counter = 0

      @tf.function
      def __call__(self):
        if self.counter == 0:
          # Lifts ops out of function-building graphs
          with tf.init_scope():
            self.counter += 1
            self.v.assign_add(1)

        return self.v

    m = Model()
    for n in range(3):
      print(m().numpy()) # prints 1, 1, 1
    """])
_add("4.4", "iterators", "Python iterators and generators", ["""
    @tf.function
    def buggy_consume_next(iterator):
      tf.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)
    # This reuses the first value from the iterator, rather than consuming the next value.
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)
    """, """
    @tf.function
    def good_consume_next(iterator):
      # This is ok, iterator is a tf.data.Iterator
      tf.print("Value:", next(iterator))

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    iterator = iter(ds)
    good_consume_next(iterator)
    good_consume_next(iterator)
    good_consume_next(iterator)
    """])
_add("4.5", "leaks", "All outputs must be return values", ["""
    x = None

    @tf.function
    def leaky_function(a):
      global x
      x = a + 1  # Bad - leaks local tensor
      return a + 2

    correct_a = leaky_function(tf.constant(1))

    print(correct_a.numpy())  # Good - value obtained from function's returns
    try:
      x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    except AttributeError as expected:
      print(expected)
    """, """
    @tf.function
    def leaky_function(a):
      global x
      x = a + 1  # Bad - leaks local tensor
      return x  # Good - uses local tensor

    correct_a = leaky_function(tf.constant(1))

    print(correct_a.numpy())  # Good - value obtained from function's returns
    try:
      x.numpy()  # Bad - tensor leaked from inside the function, cannot be used here
    except AttributeError as expected:
      print(expected)

    @tf.function
    def captures_leaked_tensor(b):
      b += x  # Bad - `x` is leaked from `leaky_function`
      return b

    with assert_raises(TypeError):
      captures_leaked_tensor(tf.constant(2))
    """, """
    class MyClass:

      def __init__(self):
        self.field = None

    external_list = []
    external_object = MyClass()

    def leaky_function():
      a = tf.constant(1)
      external_list.append(a)  # Bad - leaks tensor
      external_object.field = a  # Bad - leaks tensor
    """], needs=H, probe=["""
    tf.function(leaky_function)()
    try:
      external_list[0].numpy()
    except AttributeError as expected:
      print(expected)
    print(external_object.field is external_list[0])
    """])
_add("4.6", "recursion", "Recursive Functions", ["""
    @tf.function
    def recursive_fn(n):
      if n > 0:
        return recursive_fn(n - 1)
      else:
        return 1

    with assert_raises(Exception):
      recursive_fn(tf.constant(5))  # Bad - maximum recursion error.
    """, """
    @tf.function
    def recursive_fn(n):
      if n > 0:
        print('tracing')
        return recursive_fn(n - 1)
      else:
        return 1

    recursive_fn(5)  # Warning - multiple tracings
    """], needs=H)
_add("4.7", "globals", "Depending on Python globals and free variables", ["""
    @tf.function
    def buggy_add():
      return 1 + foo

    @tf.function
    def recommended_add(foo):
      return 1 + foo

    foo = 1
    print("Buggy:", buggy_add())
    print("Correct:", recommended_add(foo))
    """, """
    print("Updating the value of `foo` to 100!")
    foo = 100
    print("Buggy:", buggy_add())  # Did not change!
    print("Correct:", recommended_add(foo))
    """, """
    @tf.function
    def variable_add():
      return 1 + foo

    foo = tf.Variable(1)
    print("Variable:", variable_add())
    """, """
    print("Updating the value of `foo` to 100!")
    foo.assign(100)
    print("Variable:", variable_add())
    """])
_add("4.8", "python_objects", "Depending on Python objects", ["""
    class SimpleModel(tf.Module):
      def __init__(self):
        # These values are *not* tf.Variables.
        self.bias = 0.
        self.weight = 2.

    @tf.function
    def evaluate(model, x):
      return model.weight * x + model.bias

    simple_model = SimpleModel()
    x = tf.constant(10.)
    print(evaluate(simple_model, x))
    """, """
    print("Adding bias!")
    simple_model.bias += 5.0
    print(evaluate(simple_model, x))  # Didn't change :(
    """, """
    def evaluate(model, x):
      return model.weight * x + model.bias

    new_model = SimpleModel()
    evaluate_no_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    # Don't pass in `new_model`, `Function` already captured its state during tracing.
    print(evaluate_no_bias(x))
    """, """
    print("Adding bias!")
    new_model.bias += 5.0
    # Create new Function and ConcreteFunction since you modified new_model.
    evaluate_with_bias = tf.function(evaluate).get_concrete_function(new_model, x)
    print(evaluate_with_bias(x)) # Don't pass in `new_model`.
    """, """
    class BetterModel:

      def __init__(self):
        self.bias = tf.Variable(0.)
        self.weight = tf.Variable(2.)

    @tf.function
    def evaluate(model, x):
      return model.weight * x + model.bias

    better_model = BetterModel()
    print(evaluate(better_model, x))
    """, """
    print("Adding bias!")
    better_model.bias.assign_add(5.0)  # Note: instead of better_model.bias += 5
    print(evaluate(better_model, x))  # This works!
    """])
_add("4.9", "variables", "Creating tf.Variables", ["""
    @tf.function
    def f(x):
      v = tf.Variable(1.0)
      return v

    with assert_raises(ValueError):
      f(1.0)
    """, """
    class Count(tf.Module):
      def __init__(self):
        self.count = None

      @tf.function
      def __call__(self):
        if self.count is None:
          self.count = tf.Variable(0)
        return self.count.assign_add(1)

    c = Count()
    print(c())
    print(c())
    """], needs=H)
_add("4.10", "keras_optimizers", "Several Keras optimizers", ["""
    opt1 = tf.keras.optimizers.Adam(learning_rate = 1e-2)
    opt2 = tf.keras.optimizers.Adam(learning_rate = 1e-3)

    @tf.function
    def train_step(w, x, y, optimizer):
       with tf.GradientTape() as tape:
           L = tf.reduce_sum(tf.square(w*x - y))
       gradients = tape.gradient(L, [w])
       optimizer.apply_gradients(zip(gradients, [w]))

    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])

    train_step(w, x, y, opt1)
    print("Calling `train_step` with different optimizer...")
    with assert_raises(ValueError):
      train_step(w, x, y, opt2)
    """, """
    opt1 = tf.keras.optimizers.Adam(learning_rate = 1e-2)
    opt2 = tf.keras.optimizers.Adam(learning_rate = 1e-3)

    # Not a tf.function.
    def train_step(w, x, y, optimizer):
       with tf.GradientTape() as tape:
           L = tf.reduce_sum(tf.square(w*x - y))
       gradients = tape.gradient(L, [w])
       optimizer.apply_gradients(zip(gradients, [w]))

    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])

    # Make a new Function and ConcreteFunction for each optimizer.
    train_step_1 = tf.function(train_step).get_concrete_function(w, x, y, opt1)
    train_step_2 = tf.function(train_step).get_concrete_function(w, x, y, opt2)
    for i in range(10):
      if i % 2 == 0:
        train_step_1(w, x, y) # `opt1` is not used as a parameter.
      else:
        train_step_2(w, x, y) # `opt2` is not used as a parameter.
    """], needs=H, probe=["""
    print(w.numpy() < 2.0)
    """])
_add("4.11", "deleted_variable", "Deleting a Variable a concrete function uses", ["""
    external_var = tf.Variable(3)
    @tf.function
    def f(x):
      return x * external_var

    traced_f = f.get_concrete_function(4)
    print("Calling concrete function...")
    print(traced_f(4))

    # The original variable object gets garbage collected, since there are no more
    # references to it.
    external_var = tf.Variable(4)
    print()
    print("Calling concrete function after garbage collecting its closed Variable...")
    with assert_raises(tf.errors.FailedPreconditionError):
      traced_f(4)
    """], needs=H)

# 5. From the blog post (its code, laid out as cells)
_add("5.1", "numpy_random", "NumPy calls become constants", ["""
    import fn as tf
    import numpy as np

    # input_signature fixes the input types: shape and dtype
    @tf.function(input_signature=[tf.TensorSpec(shape=[], dtype=tf.float32)])
    def np_random():
        a = np.random.randn(3, 3)
        tf.print(a)

    @tf.function
    def tf_random():
        b = tf.random.normal((3, 3))
        tf.print(b)

    # np random numbers are the same on every call
    np_random()
    np_random()

    # tf random numbers are new on every call
    tf_random()
    tf_random()
    """], needs=())
_add("5.2", "variable_outside", "Create Variables outside", ["""
    # created outside the decorated function
    x = tf.Variable(1.0, dtype=tf.float32)

    @tf.function
    def out():
        x.assign_add(1.0)
        tf.print(x)

    out()
    out()
    """])
_add("5.3", "list_outside", "Python lists outside are not updated", ["""
    lyst = []

    @tf.function
    def append_list(x):
        lyst.append(x)
        tf.print(lyst)

    append_list(tf.constant(4.3))
    append_list(tf.constant(2.3))
    print(lyst)
    """])
_add("5.4", "retracing_by_type", "What triggers a new graph", ["""
    @tf.function(autograph=True)
    def add(a, b):
        for i in tf.range(4):
            tf.print(i)
        c = a + b
        print('finish')
        return c

    # first call
    add(tf.constant('hello'), tf.constant('world'))
    """, """
    add(tf.constant('td'), tf.constant('new_world'))
    """, """
    add(tf.constant(3.4), tf.constant(4.4))
    """, """
    add('td', 'new_world')
    """], probe=["""
    add('x', 'y')
    """, """
    add('x', 'y')
    """])
