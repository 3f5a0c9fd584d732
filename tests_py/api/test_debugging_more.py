"""tf.debugging.assert_near, assert_integer, assert_rank_in, assert_proper_iterable,
assert_same_float_dtype and assert_shapes: TF 2.21's results, exceptions and messages (expected
values from running TF 2.21), eagerly and inside Functions (static checks at trace time, the
rest when the graph runs)."""
import numpy as np
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle
P = "tf" if IS_TF else "fn"
D = tf.debugging
F32 = tf.TensorSpec(None, tf.float32)


def _eager_message(f):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f()
    return str(e.value)


def _run_message(f, *args):
    """The graph's failure text from `assertion failed:` up to the node line."""
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        f(*args)
    text = str(e.value)
    return text[text.index("assertion failed:"):].split("\n")[0]


def _tol(eps, dtype):
    return f"{P}.Tensor({eps}, shape=(), dtype={dtype})"


def test_assert_near_eager():
    x, y = tf.constant([1.0, 2.0]), tf.constant([1.0, 2.1])
    assert D.assert_near(x, x) is None
    assert D.assert_near(x, y, rtol=0.1) is None
    assert D.assert_near(x, y, atol=0.2) is None
    assert D.assert_near(tf.constant([[1.0, 2.0]] * 2), tf.constant([1.0, 2.0])) is None  # broadcast
    assert D.assert_near([1.0, 2.0], [1.0, 2.0000001]) is None
    tol = _tol("1.1920929e-06", "float32")
    assert _eager_message(lambda: D.assert_near(x, y)) == (
        f"Expected '{P}.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b''\n"
        f"b'x and y not equal to tolerance rtol = {tol}, atol = {tol}'\n"
        "b'x (shape=(2,) dtype=float32) = '\n1.0, 2.0\nb'y (shape=(2,) dtype=float32) = '\n1.0, 2.1")
    assert _eager_message(lambda: D.assert_near(x, y, message="hello", summarize=1)) == (
        f"Expected '{P}.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'hello.  '\n"
        f"b'x and y not equal to tolerance rtol = {tol}, atol = {tol}'\n"
        "b'x (shape=(2,) dtype=float32) = '\n1.0, ...\nb'y (shape=(2,) dtype=float32) = '\n1.0, ...")
    tol64 = _tol("2.220446049250313e-15", "float64")
    assert _eager_message(lambda: D.assert_near(tf.constant([1.0], tf.float64), tf.constant([1.1], tf.float64))) \
        == (f"Expected '{P}.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b''\n"
            f"b'x and y not equal to tolerance rtol = {tol64}, atol = {tol64}'\n"
            "b'x (shape=(1,) dtype=float64) = '\n1.0\nb'y (shape=(1,) dtype=float64) = '\n1.1")


def test_assert_near_bad_input():
    with pytest.raises(ValueError, match=r"^data type <class 'numpy.int32'> not inexact$"):
        D.assert_near(tf.constant([1, 2]), tf.constant([1, 2]))
    with pytest.raises(ValueError, match=r"^y: Tensor conversion requested dtype float32 for Tensor with dtype "
                                         r"float64: <\w+\.Tensor: shape=\(1,\), dtype=float64"):
        D.assert_near(tf.constant([1.0]), tf.constant([1.0], tf.float64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs. \[3\] \[Op:Sub\]"):
        D.assert_near(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))


def test_assert_near_in_function():
    @tf.function
    def f(x, y):
        check = D.assert_near(x, y, message="hi")
        assert type(check).__name__ == "Operation" and check.name.startswith("assert_near/")
        with tf.control_dependencies([check]):
            return tf.identity(x)

    assert f(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]
    tol = 'Tensor(\\"assert_near/%s:0\\", shape=(), dtype=float32)'  # TF's Assert escapes quotes
    assert _run_message(f, tf.constant([1.0, 2.0]), tf.constant([1.0, 2.1])) == (
        f"assertion failed: [hi.  ] [x and y not equal to tolerance rtol = {tol % 'rtol'}, atol = {tol % 'atol'}] "
        "[x (x:0) = ] [1 2] [y (y:0) = ] [1 2.1]")

    @tf.function
    def g(x, y):
        D.assert_near(x, y, summarize=2)  # kept without a control dependency (stateful)
        return x

    assert _run_message(g, tf.range(10.0), tf.range(10.0) + 1).endswith("[x (x:0) = ] [0 1...] [y (y:0) = ] [1 2...]")


def test_assert_integer():
    assert D.assert_integer(tf.constant([1])) is None
    assert D.assert_integer(tf.constant([1], tf.uint8)) is None
    with pytest.raises(TypeError, match=r"""^m.  Expected "x" to be integer type.  Found: tensor of dtype """
                                        r"""<dtype: 'float32'>$"""):
        D.assert_integer(tf.constant([1.0]), message="m")
    with pytest.raises(TypeError, match=r"""^Expected "x" to be integer type.  Found: tensor of dtype <dtype: 'bool'>$"""):
        D.assert_integer(tf.constant([True]))

    @tf.function
    def f(x):
        assert D.assert_integer(x) is None
        return x

    assert f(tf.constant([3])).numpy().tolist() == [3]
    with pytest.raises(TypeError, match=r"""m.  Expected "x" to be integer type.  Found: x:0 of dtype <dtype: 'float32'>"""):
        tf.function(lambda x: D.assert_integer(x, message="m")).get_concrete_function(tf.TensorSpec([2], tf.float32))


def test_assert_rank_in_eager():
    x = tf.constant([1.0, 2.0])
    assert D.assert_rank_in(x, [1, 2]) is None
    assert D.assert_rank_in(x, [tf.constant(1)]) is None
    with pytest.raises(ValueError, match=r"^m.  Tensor  must have rank in \(0, 2\).  Received rank 1, shape \(2,\)$"):
        D.assert_rank_in(x, (0, 2), message="m")
    with pytest.raises(ValueError, match=r"^Tensor  must have rank in \(0, 2\).  Received rank 3, shape \(2, 3, 4\)$"):
        D.assert_rank_in(tf.zeros([2, 3, 4]), [0, 2])
    with pytest.raises(ValueError, match=r"^Tensor  must have rank in \(\).  Received rank 1, shape \(2,\)$"):
        D.assert_rank_in(x, [])
    with pytest.raises(TypeError, match=r"^tensor must be of type tf.int32; got tf.float32$"):
        D.assert_rank_in(x, [1.0])
    with pytest.raises(ValueError, match=r"^Rank must be a scalar.$"):
        D.assert_rank_in(x, [[1]])


def test_assert_rank_in_function():
    @tf.function
    def static(x):
        check = D.assert_rank_in(x, [1, 2])
        assert check.name == "assert_rank_in/static_checks_determined_all_ok" and check.type == "NoOp"
        return x

    static(tf.constant([1.0]))
    with pytest.raises(ValueError, match=r"Tensor x:0 must have rank in \(0, 2\).  Received rank 1, shape \(2,\)"):
        tf.function(lambda x: D.assert_rank_in(x, [0, 2])).get_concrete_function(tf.TensorSpec([2], tf.float32))

    @tf.function(input_signature=[F32])
    def dynamic(x):
        check = D.assert_rank_in(x, [0, 2], message="m")
        assert type(check).__name__ == "Operation"
        with tf.control_dependencies([check]):
            return tf.size(x)

    assert dynamic(tf.zeros([2, 3])).numpy() == 6
    assert dynamic(tf.constant(1.0)).numpy() == 1
    assert _run_message(dynamic, tf.constant([1.0, 2.0])) == \
        "assertion failed: [m.  ] [Tensor x:0 must have rank in] [0] [2] [Received shape: ] [2]"
    assert _run_message(dynamic, tf.zeros([2, 3, 4])) == \
        "assertion failed: [m.  ] [Tensor x:0 must have rank in] [0] [2] [Received shape: ] [2 3 4]"


def test_assert_proper_iterable():
    for ok in ([1, 2], (1,), {"a": 1}, (i for i in range(2)), tf.Variable([1.0])):
        assert D.assert_proper_iterable(ok) is None
    for bad in (tf.constant([1.0]), np.array([1]), "ab", b"ab"):
        with pytest.raises(TypeError, match=r'^Expected argument "values" to be a "proper" iterable.  Found: <class '):
            D.assert_proper_iterable(bad)
    with pytest.raises(TypeError, match=r"""^Expected argument "values" to be iterable.  Found: <class 'int'>$"""):
        D.assert_proper_iterable(3)
    with pytest.raises(TypeError, match=r'"proper" iterable'):
        tf.function(lambda x: D.assert_proper_iterable(x)).get_concrete_function(tf.TensorSpec([2], tf.float32))


def test_assert_same_float_dtype():
    x, y = tf.constant([1.0, 2.0]), tf.constant(1.0, tf.float64)
    assert D.assert_same_float_dtype() == tf.float32
    assert D.assert_same_float_dtype([x, tf.constant(3.0)]) == tf.float32
    assert D.assert_same_float_dtype([y]) == tf.float64
    assert D.assert_same_float_dtype(None, tf.float16) == tf.float16
    assert D.assert_same_float_dtype([None, x]) == tf.float32
    for args in (([tf.constant(1)],), (None, tf.int32)):
        with pytest.raises(ValueError, match=r"^Expected floating point type, got <dtype: 'int32'>.$"):
            D.assert_same_float_dtype(*args)
    with pytest.raises(ValueError) as e:
        D.assert_same_float_dtype([x, y])
    assert str(e.value) == (f"{P}.Tensor(1.0, shape=(), dtype=float64), type=<dtype: 'float64'>, must be of the "
                            f"same type (<dtype: 'float32'>) as {P}.Tensor([1. 2.], shape=(2,), dtype=float32).")
    with pytest.raises(ValueError) as e:
        D.assert_same_float_dtype([x], tf.float64)
    assert str(e.value) == (f"{P}.Tensor([1. 2.], shape=(2,), dtype=float32), type=<dtype: 'float32'>, must be of "
                            "the same type (<dtype: 'float64'>).")
    with pytest.raises(ValueError, match=r"^Variable:0, type=<dtype: 'float64'>, must be of the same type "
                                         r"\(<dtype: 'float32'>\) as Variable:0.$"):
        D.assert_same_float_dtype([tf.Variable(1.0), tf.Variable(1.0, dtype=tf.float64)])

    @tf.function
    def f(a):
        assert D.assert_same_float_dtype([a]) == tf.float32
        return a

    f(x)


def _value_error(shapes, **kw):
    with pytest.raises(ValueError) as e:
        D.assert_shapes(shapes, **kw)
    return str(e.value)


def test_assert_shapes_eager():
    a, b, p = tf.zeros([2, 3]), tf.ones([2, 4]), tf.Variable([1., 2., 3.])
    assert D.assert_shapes([(a, ("N", "Q")), (b, ("N", "D")), (p, ("Q",)), (1.0, ())]) is None
    assert D.assert_shapes([(a, ("2", "3"))]) is None  # sizes parsed as ints
    assert D.assert_shapes([(a, (..., 3)), (b, ("*", 4))]) is None
    assert D.assert_shapes([(a, (None, ".")), (b, None)]) is None
    assert D.assert_shapes([(tf.constant(1.0), (1,)), (tf.constant([1.0]), ())]) is None
    assert D.assert_shapes([(a, tf.TensorShape([2, 3])), (a, "NQ")]) is None
    sa, sb = "shape=(2, 3) dtype=float32", "shape=(2, 4) dtype=float32"
    assert _value_error([(a, ("N", "D")), (b, ("N", "D"))]) == \
        f"Specified by tensor {sa} dimension 1.  Tensor {sb} dimension 1 must have size 3.  Received size 4, shape (2, 4)"
    assert _value_error([(a, ("N", "D")), (b, ("N", "D"))], message="m").startswith("m.  Specified by tensor")
    assert _value_error([(a, ("N",))]) == "Tensor  must have rank in (0, 1).  Received rank 2, shape (2, 3)"
    assert _value_error([(a, ("N", "Q", "R"))]) == "Tensor  must have rank 3.  Received rank 2, shape (2, 3)"
    assert _value_error([(a, (2, 4))]) == \
        f"Specified explicitly.  Tensor {sa} dimension 1 must have size 4.  Received size 3, shape (2, 3)"
    assert _value_error([(a, (..., 4))]) == \
        f"Specified explicitly.  Tensor {sa} dimension -1 must have size 4.  Received size 3, shape (2, 3)"
    assert _value_error([(tf.constant([1.0]), (..., 2, 2))]) == \
        "Tensor  must have rank at least 2.  Received rank 1, shape (1,)"
    assert _value_error([(tf.constant(1.0), (2,))]) == \
        "Specified explicitly.  Tensor shape=() dtype=float32 dimension 0 must have size 2.  Received size 1, shape ()"
    assert _value_error([(a, (2, ...))]) == (
        f"Tensor {sa} specified shape index 1.  Symbol `...` or `*` for a variable number of unspecified "
        "dimensions is only allowed as the first entry")
    assert _value_error([(a, 3)]) == (
        f"Tensor {sa}.  Specified shape must be an iterable.  An iterable has the attribute `__iter__` or "
        "`__getitem__`.  Received specified shape: 3")


def test_assert_shapes_in_function():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)] * 2)
    def known_rank(x, y):
        assert D.assert_shapes([(x, ("N",)), (y, ("N",))], message="m") is None
        return tf.size(x) + tf.size(y)

    assert known_rank(tf.constant([1.0]), tf.constant([2.0])).numpy() == 2
    assert _run_message(known_rank, tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])) == (
        "assertion failed: [m.  ] [Specified by tensor x:0 dimension 0] [Tensor y:0 dimension] [0] "
        "[must have size] [2] [Received shape: ] [3]")

    @tf.function(input_signature=[F32, F32])
    def unknown_rank(x, y):
        D.assert_shapes([(x, ("N", 2)), (y, ("N",))])
        return tf.size(x) + tf.size(y)

    assert unknown_rank(tf.zeros([3, 2]), tf.zeros([3])).numpy() == 9
    assert _run_message(unknown_rank, tf.zeros([3]), tf.zeros([3])) == \
        "assertion failed: [] [Tensor x:0 must have rank] [2] [Received shape: ] [3]"
    assert _run_message(unknown_rank, tf.zeros([3, 2]), tf.zeros([4])) == (
        "assertion failed: [] [Specified by tensor x:0 dimension 0] [Tensor y:0 dimension] [0] [must have size] [3] "
        "[Received shape: ] [4]")
    assert _run_message(unknown_rank, tf.zeros([3, 5]), tf.zeros([3])) == (
        "assertion failed: [] [Specified explicitly] [Tensor x:0 dimension] [1] [must have size] [2] "
        "[Received shape: ] [3 5]")
    with pytest.raises(ValueError, match=r"Specified explicitly.  Tensor x:0 dimension 0 must have size 3.  "
                                         r"Received size 2, shape \(2,\)"):
        tf.function(lambda x: D.assert_shapes([(x, (3,))])).get_concrete_function(tf.TensorSpec([2], tf.float32))


def test_assert_shapes_data_and_nested_summary():
    @tf.function(input_signature=[F32])
    def f(x):
        D.assert_shapes([(x, ("N", 2))], data=["bad x", x], summarize=2)
        return tf.size(x)

    assert f(tf.zeros([3, 2])).numpy() == 6
    assert _run_message(f, tf.range(6.0)) == "assertion failed: [bad x] [0 1...]"
    assert _run_message(f, tf.zeros([3, 5])) == "assertion failed: [bad x] [[0 0...]...]"

    @tf.function(input_signature=[F32])
    def g(x):
        tf.Assert(tf.reduce_all(x > 0), ['a"b\'c\\d\ne\x01é', x], summarize=-1)
        return x

    text = _run_message(g, -tf.ones([2, 2]))
    assert text == "assertion failed: [a\\\"b\\'c\\\\d\\ne\\001é] [[-1 -1][-1 -1]]"


def test_assert_rank_in_function_names_the_tensor():
    with pytest.raises(ValueError, match=r"m.  Tensor x:0 must have rank 2.  Received rank 1, shape \(2,\)"):
        tf.function(lambda x: D.assert_rank(x, 2, message="m")).get_concrete_function(tf.TensorSpec([2], tf.float32))

    @tf.function(input_signature=[F32])
    def f(x):
        D.assert_rank(x, 2, message="m")
        D.assert_rank_at_least(x, 1)
        return tf.size(x)

    assert f(tf.zeros([2, 3])).numpy() == 6
    assert _run_message(f, tf.range(6.0)) == \
        "assertion failed: [m.  ] [Tensor x:0 must have rank] [2] [Received shape: ] [6]"
    assert _run_message(f, tf.constant(1.0)) == \
        "assertion failed: [m.  ] [Tensor x:0 must have rank] [2] [Received shape: ] []"


def test_assert_near_dtypes():
    c = tf.constant([1 + 1j], tf.complex64)
    assert D.assert_near(c, c) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"x and y not equal to tolerance rtol = \w+\.Tensor"
                                                           r"\(1.1920929e-06, shape=\(\), dtype=float32\)"):
        D.assert_near(c, tf.constant([1 + 2j], tf.complex64))
    assert D.assert_near(tf.constant([1.0], tf.float16), tf.constant([1.005], tf.float16)) is None
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"rtol = \w+\.Tensor\(0.009766, shape=\(\), dtype=float16\)"):
        D.assert_near(tf.constant([1.0], tf.float16), tf.constant([1.1], tf.float16))
    with pytest.raises(ValueError, match=r"^data type <class 'ml_dtypes.bfloat16'> not inexact$"):
        D.assert_near(tf.constant([1.0], tf.bfloat16), tf.constant([1.0], tf.bfloat16))
    assert D.assert_near(tf.constant([1.0]), tf.constant([1.1]), rtol=tf.constant(0.2)) is None
    assert D.assert_near(tf.zeros([0]), tf.zeros([0])) is None
    with pytest.raises(tf.errors.InvalidArgumentError):
        D.assert_near(tf.constant([np.nan]), tf.constant([np.nan]))
