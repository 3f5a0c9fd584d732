"""Guide cells for SPEC sections 0-2 (registered into ``snippets.EXAMPLES``).

Import ``snippets``, not this module.
"""
from __future__ import annotations

from snippets import H, _add  # noqa: F401

# 0: set-up cells every notebook starts with.
_add("0.1", "setup", "Setup", ["import fn as tf"], needs=())
_add("0.2", "assert_raises", "A helper for expected errors", ["""
    import traceback
    import contextlib

    # Some helper code to demonstrate the kinds of errors you might encounter.
    @contextlib.contextmanager
    def assert_raises(error_class):
      try:
        yield
      except error_class as e:
        print('Caught expected exception \\n  {}:'.format(error_class))
        traceback.print_exc(limit=2)
      except Exception as e:
        raise e
      else:
        raise Exception('Expected {} to be raised but no error was raised!'.format(
            error_class))
    """], needs=("0.1",))

# 1. Basics
_add("1.1", "add", "A Function behaves like an op", ["""
    @tf.function  # The decorator converts `add` into a `Function`.
    def add(a, b):
      return a + b

    add(tf.ones([2, 2]), tf.ones([2, 2]))  #  [[2., 2.], [2., 2.]]
    """])
_add("1.2", "gradient", "Gradients flow through a Function", ["""
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
      result = add(v, 1.0)
    tape.gradient(result, v)
    """], needs=("1.1",))
_add("1.3", "nested_functions", "Functions call Functions", ["""
    @tf.function
    def dense_layer(x, w, b):
      return add(tf.matmul(x, w), b)

    dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))
    """], needs=("1.1",))
_add("1.4", "speed", "One big op: little speed-up", ["""
    import timeit
    conv_layer = tf.keras.layers.Conv2D(100, 3)

    @tf.function
    def conv_fn(image):
      return conv_layer(image)

    image = tf.zeros([1, 200, 200, 100])
    # Warm up
    conv_layer(image); conv_fn(image)
    print("Eager conv:", timeit.timeit(lambda: conv_layer(image), number=10))
    print("Function conv:", timeit.timeit(lambda: conv_fn(image), number=10))
    print("Note how there's not much difference in performance for convolutions")
    """])

# 2. Tracing
_add("2.1", "double_traces", "One trace per input type", ["""
    @tf.function
    def double(a):
      print("Tracing with", a)
      return a + a

    print(double(tf.constant(1)))
    print()
    print(double(tf.constant(1.1)))
    print()
    print(double(tf.constant("a")))
    print()
    """])
_add("2.2", "reuse_trace", "Same input type: the trace is reused", ["""
    # This doesn't print 'Tracing with ...'
    print(double(tf.constant("b")))
    """], needs=("2.1",))
_add("2.3", "concrete_signatures", "Listing the traces", ["""
    print(double.pretty_printed_concrete_signatures())
    """], needs=("2.2",))
# 2.4 has no code in the guide; these cells exercise each rule it states.
_add("2.4", "trace_types", "Trace types", ["""
    @tf.function
    def by_tensor(x):
      print("Tracing with", x)

    print("Tensors: by dtype and shape")
    by_tensor(tf.constant([1, 2]))
    by_tensor(tf.constant([3, 4]))
    by_tensor(tf.constant([1, 2, 3]))
    by_tensor(tf.constant([1.0, 2.0]))
    """, """
    @tf.function
    def by_value(x):
      print("Tracing with", x)

    print("Python primitives: by value")
    by_value(3)
    by_value(3)
    by_value(4)
    """, """
    @tf.function
    def by_structure(x):
      print("Tracing with", x)

    print("Lists and tuples: by element types, in order")
    by_structure([1, 2])
    by_structure([1, 2])
    by_structure([2, 1])
    by_structure((1, 2))
    print("Dicts: by key to value type, order ignored")
    by_structure({1: 2, 3: 4})
    by_structure({3: 4, 1: 2})
    """, """
    @tf.function
    def by_variable(v):
      print("Tracing with a variable of dtype", v.dtype.name)
      return v + 1

    print("Variables: by dtype and shape (the handle is an input)")
    v1 = tf.Variable(1.0)
    v2 = tf.Variable(2.0)
    print(by_variable(v1))
    print(by_variable(v1))
    print(by_variable(v2))
    """, """
    class Key:
      def __init__(self, k):
        self.k = k
      def __eq__(self, other):
        return isinstance(other, Key) and self.k == other.k
      def __hash__(self):
        return hash(self.k)
      def __repr__(self):
        return f"Key({self.k})"

    @tf.function
    def by_equality(x):
      print("Tracing with", x)

    print("Other objects: by equality and hash, while the object lives")
    first = Key(1)
    by_equality(first)
    by_equality(Key(1))  # equal to `first`, which is alive: no retrace
    by_equality(Key(2))
    """, """
    @tf.function
    def shape_of(x):
      print("Tracing with", x)
      return tf.constant(str(x.shape))

    print("Subtypes: the most specific matching trace is used")
    vector = shape_of.get_concrete_function(tf.TensorSpec([None], tf.int32))
    unranked = shape_of.get_concrete_function(tf.TensorSpec(None, tf.int32))
    print(shape_of(tf.constant([1, 2])))
    print(shape_of(tf.constant([[1, 2]])))
    print(shape_of(tf.constant(1)))
    """])
_add("2.5", "input_signature", "A fixed input_signature", ["""
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
      print("Tracing with", x)
      return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    print(next_collatz(tf.constant([1, 2])))
    # You specified a 1-D tensor in the input signature, so this should fail.
    with assert_raises(ValueError):
      next_collatz(tf.constant([[1, 2], [3, 4]]))

    # You specified an int32 dtype in the input signature, so this should fail.
    with assert_raises(ValueError):
      next_collatz(tf.constant([1.0, 2.0]))
    """], needs=H)
_add("2.6", "unknown_dimensions", "Unknown dimensions", ["""
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def g(x):
      print('Tracing with', x)
      return x

    # No retrace!
    print(g(tf.constant([1, 2, 3])))
    print(g(tf.constant([1, 2, 3, 4, 5])))
    """])
_add("2.7", "tensor_arguments", "Tensors instead of Python literals", ["""
    def train_one_step():
      pass

    @tf.function
    def train(num_steps):
      print("Tracing with num_steps = ", num_steps)
      tf.print("Executing with num_steps = ", num_steps)
      for _ in tf.range(num_steps):
        train_one_step()

    print("Retracing occurs for different Python arguments.")
    train(num_steps=10)
    train(num_steps=20)

    print()
    print("Traces are reused for Tensor arguments.")
    train(num_steps=tf.constant(10))
    train(num_steps=tf.constant(20))
    """])
_add("2.8", "separate_functions", "Separate Functions never share traces", ["""
    def f():
      print('Tracing!')
      tf.print('Executing')

    tf.function(f)()
    tf.function(f)()
    """])
_add("2.9", "tracing_protocol", "The tracing protocol", ["""
    @tf.function
    def get_mixed_flavor(fruit_a, fruit_b):
      return fruit_a.flavor + fruit_b.flavor

    class Fruit:
      flavor = tf.constant([0, 0])

    class Apple(Fruit):
      flavor = tf.constant([1, 2])

    class Mango(Fruit):
      flavor = tf.constant([3, 4])

    # As described in the above rules, a generic TraceType for `Apple` and `Mango`
    # is generated (and a corresponding ConcreteFunction is traced) but it fails to
    # match the second function call since the first pair of Apple() and Mango()
    # have gone out out of scope by then and deleted.
    get_mixed_flavor(Apple(), Mango()) # Traces a new concrete function
    get_mixed_flavor(Apple(), Mango()) # Traces a new concrete function again

    # However, each subclass of the `Fruit` class has a fixed flavor, and you
    # can reuse an existing traced concrete function if it was the same
    # subclass. Avoiding such unnecessary tracing of concrete functions
    # can have significant performance benefits.
    class FruitTraceType(tf.types.experimental.TraceType):
      def __init__(self, fruit_type):
        self.fruit_type = fruit_type

      def is_subtype_of(self, other):
          return (type(other) is FruitTraceType and
                  self.fruit_type is other.fruit_type)

      def most_specific_common_supertype(self, others):
          return self if all(self == other for other in others) else None

      def __eq__(self, other):
        return type(other) is FruitTraceType and self.fruit_type == other.fruit_type

      def __hash__(self):
        return hash(self.fruit_type)

    class FruitWithTraceType:

      def __tf_tracing_type__(self, context):
        return FruitTraceType(type(self))

    class AppleWithTraceType(FruitWithTraceType):
      flavor = tf.constant([1, 2])

    class MangoWithTraceType(FruitWithTraceType):
      flavor = tf.constant([3, 4])

    # Now if you try calling it again:
    get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType()) # Traces a new concrete function
    get_mixed_flavor(AppleWithTraceType(), MangoWithTraceType()) # Re-uses the traced concrete function
    """], probe=["""
    print(get_mixed_flavor.experimental_get_tracing_count())
    """])
_add("2.10", "get_concrete_function", "Obtaining concrete functions", ["""
    print("Obtaining concrete trace")
    double_strings = double.get_concrete_function(tf.constant("a"))
    print("Executing traced function")
    print(double_strings(tf.constant("a")))
    print(double_strings(a=tf.constant("b")))
    """, """
    # You can also call get_concrete_function on an InputSpec
    double_strings_from_inputspec = double.get_concrete_function(tf.TensorSpec(shape=[], dtype=tf.string))
    print(double_strings_from_inputspec(tf.constant("c")))
    """], needs=("2.2",))
_add("2.11", "print_concrete_function", "Printing a ConcreteFunction", ["""
    print(double_strings)
    """], needs=("2.10",))
_add("2.12", "structured_signature", "A concrete function's signature", ["""
    print(double_strings.structured_input_signature)
    print(double_strings.structured_outputs)
    """], needs=("2.10",))
_add("2.13", "incompatible_concrete", "Incompatible types raise", ["""
    with assert_raises(tf.errors.InvalidArgumentError):
      double_strings(tf.constant(1))
    """], needs=("0.2", "2.10"))
_add("2.14", "python_args_in_signature", "Python arguments in a concrete signature", ["""
    @tf.function
    def pow(a, b):
      return a ** b

    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    print(square)
    """, """
    assert square(tf.constant(10.0)) == 100

    with assert_raises(TypeError):
      square(tf.constant(10.0), b=3)
    """], needs=H)
_add("2.15", "graph_nodes", "Obtaining graphs", ["""
    graph = double_strings.graph
    for node in graph.as_graph_def().node:
      print(f'{node.input} -> {node.name}')
    """], needs=("2.10",))
# 2.16 has no code in the guide; these cells show the two debugging switches.
_add("2.16", "debugging", "Debugging", ["""
    @tf.function
    def square_it(x):
      print("Python body runs with", x)
      return x * x

    tf.config.run_functions_eagerly(True)
    print(square_it(tf.constant(3)))
    print(square_it(tf.constant(3)))
    tf.config.run_functions_eagerly(False)
    print(square_it(tf.constant(3)))
    print(square_it(tf.constant(3)))
    """, """
    tf.debugging.enable_check_numerics()

    @tf.function
    def log_of(x):
      return tf.math.log(x)

    with assert_raises(tf.errors.InvalidArgumentError):
      log_of(tf.constant(-1.0))
    """, """
    tf.debugging.disable_check_numerics()
    print(tf.math.log(tf.constant(-1.0)))
    """], needs=H)
