"""fn.TensorArray: eagerly (mutable, like TF's eager TensorArray) and in graphs, as a loop
variable of while_loop and of AutoGraph loops, and across cond branches."""
import numpy as np
import pytest

from tfbackend import tf as fn

pytestmark = pytest.mark.tf_oracle


def value(t):
    return t.numpy().tolist() if hasattr(t, "numpy") else t


def test_eager_write_read_stack_size():
    ta = fn.TensorArray(fn.float32, size=3)
    ta.write(0, 1.0)                 # eagerly the array is updated in place, as in TF
    ta = ta.write(2, [3.0][0])
    assert value(ta.stack()) == [1.0, 0.0, 3.0]
    assert value(ta.read(2)) == 3.0 and value(ta.read(1)) == 0.0
    assert value(ta.size()) == 3 and ta.size().dtype == fn.int32
    assert ta.element_shape.as_list() == []


def test_eager_unstack_gather_scatter_concat():
    ta = fn.TensorArray(fn.int32, size=3).unstack([[1, 2], [3, 4], [5, 6]])
    assert value(ta.read(1)) == [3, 4]
    assert value(ta.gather([2, 0])) == [[5, 6], [1, 2]]
    ta = ta.scatter([0, 2], fn.constant([[7, 7], [8, 8]]))
    # read(1) cleared element 1 (clear_after_read defaults to True eagerly)
    assert value(ta.stack()) == [[7, 7], [0, 0], [8, 8]]
    assert value(ta.concat()) == [7, 7, 0, 0, 8, 8]
    parts = fn.TensorArray(fn.float32, size=0, dynamic_size=True, infer_shape=False)
    parts = parts.write(0, [1.0, 2.0]).write(1, [3.0])
    assert value(parts.concat()) == [1.0, 2.0, 3.0]


def test_dynamic_size_grows_and_fixed_size_refuses():
    ta = fn.TensorArray(fn.int32, size=0, dynamic_size=True)
    for i in range(4):
        ta = ta.write(i, i * i)
    assert value(ta.stack()) == [0, 1, 4, 9]
    fixed = fn.TensorArray(fn.int32, size=2)
    with pytest.raises(fn.errors.OutOfRangeError,
                       match="Tried to write to index 5 but array is not resizeable and size is: 2"):
        fixed.write(5, 1)
    with pytest.raises(ValueError, match="Size must be declared for TensorArrays when eager execution is enabled"):
        fn.TensorArray(fn.int32, dynamic_size=True)


def test_dtype_and_shape_errors():
    ta = fn.TensorArray(fn.float32, size=2)
    with pytest.raises(fn.errors.InvalidArgumentError, match="TensorArray dtype is float32 but Op is trying to write dtype int32"):
        ta.write(0, fn.constant(1))
    ta = ta.write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(3,\)\), expected \(\(2,\)\)"):
        ta.write(1, [1.0, 2.0, 3.0])
    empty = fn.TensorArray(fn.float32, size=0)
    assert empty.stack().shape == (0,)
    assert value(fn.TensorArray(fn.float32, size=0, element_shape=[2]).stack()) == []


def test_errors_inside_a_function():
    @fn.function
    def bad_shape():
        ta = fn.TensorArray(fn.float32, size=2)
        ta = ta.write(0, [1.0, 2.0])
        return ta.write(1, [1.0, 2.0, 3.0]).stack()

    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(3,\) but expected \(2,\)"):
        bad_shape()

    @fn.function
    def out_of_range():
        return fn.TensorArray(fn.float32, size=2).write(5, 1.0).stack()

    with pytest.raises(fn.errors.InvalidArgumentError, match="Trying to modify element 5 in a list with 2 elements"):
        out_of_range()


def test_tensor_array_in_a_traced_while_loop():
    @fn.function
    def squares(n):
        ta = fn.TensorArray(fn.int32, size=n)
        _, ta = fn.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, i * i)), [0, ta])
        return ta.stack(), ta.size()

    st, size = squares(fn.constant(5))
    assert value(st) == [0, 1, 4, 9, 16] and value(size) == 5
    assert value(squares(fn.constant(0))[1]) == 0


def test_tensor_array_in_autograph_for_loop_with_static_shape():
    @fn.function
    def running_sums(x):
        ta = fn.TensorArray(fn.float32, size=x.shape[0])
        s = fn.zeros_like(x[0])
        for i in fn.range(x.shape[0]):
            s = s + x[i]
            ta = ta.write(i, s)
        return ta.stack()

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    out = running_sums(fn.constant(x))
    np.testing.assert_allclose(out.numpy(), np.cumsum(x, axis=0))
    spec = running_sums.get_concrete_function(fn.constant(x)).structured_outputs
    assert spec.shape.as_list() == [4, 3]


def test_dynamic_rnn_from_the_guide():
    def rnn_step(inp, state):
        return inp + state

    @fn.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        input_data = fn.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = fn.TensorArray(fn.float32, size=max_seq_len)
        state = initial_state
        for i in fn.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return fn.transpose(states.stack(), [1, 0, 2])

    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = dynamic_rnn(rnn_step, fn.constant(data), fn.ones([2, 4]))
    np.testing.assert_allclose(out.numpy(), np.cumsum(data, axis=1) + 1)


def test_tensor_array_through_cond_branches_and_reads_in_graph():
    @fn.function
    def f(p, x):
        ta = fn.TensorArray(fn.float32, size=2)
        ta = fn.cond(p, lambda: ta.write(0, x), lambda: ta.write(1, x * 2.0))
        return ta.stack(), ta.read(1)

    st, r = f(fn.constant(True), fn.constant(3.0))
    assert value(st) == [3.0, 0.0] and value(r) == 0.0
    st, r = f(fn.constant(False), fn.constant(3.0))
    assert value(st) == [0.0, 6.0] and value(r) == 6.0


def test_dynamic_size_array_in_autograph_while():
    @fn.function
    def collatz(n):
        ta = fn.TensorArray(fn.int32, size=0, dynamic_size=True)
        i = 0
        while n != 1:
            ta = ta.write(i, n)
            n = fn.where(n % 2 == 0, n // 2, 3 * n + 1)
            i += 1
        return ta.stack()

    assert value(collatz(fn.constant(6))) == [6, 3, 10, 5, 16, 8, 4, 2]
