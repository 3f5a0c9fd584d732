"""Gradients of the nn ops against central finite differences (float64, reference kernels),
and the float32 (oneDNN) gradient kernels against the float64 ones."""
import numpy as np
import pytest

import fn
from gradcheck import check_op_gradient

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape)


def i32(v):
    return fn.constant(np.asarray(v, np.int32))


@pytest.mark.parametrize("stride,dilation,padding", [(1, 1, "SAME"), (2, 1, "SAME"), (2, 1, "VALID"), (1, 2, "SAME")])
def test_conv2d_gradients(stride, dilation, padding):
    attrs = {"strides": [1, stride, stride, 1], "dilations": [1, dilation, dilation, 1], "padding": padding}
    check_op_gradient("Conv2D", [r(2, 5, 4, 3), r(3, 2, 3, 2)], attrs, wrt=[0, 1])


def test_conv2d_backprop_ops_gradients():
    attrs = {"strides": [1, 2, 2, 1], "padding": "SAME"}
    check_op_gradient("Conv2DBackpropInput", [i32([1, 5, 4, 2]), r(3, 3, 2, 2), r(1, 3, 2, 2)], attrs,
                      wrt=[1, 2], none=[0])
    check_op_gradient("Conv2DBackpropFilter", [r(1, 5, 4, 2), i32([3, 3, 2, 2]), r(1, 3, 2, 2)], attrs,
                      wrt=[0, 2], none=[1])


def test_bias_add_gradients():
    check_op_gradient("BiasAdd", [r(2, 3, 4), r(4)], wrt=[0, 1])
    check_op_gradient("BiasAdd", [r(2, 3, 4), r(3)], {"data_format": "NCHW"}, wrt=[0, 1])
    check_op_gradient("BiasAddGrad", [r(3, 2)])


def test_softmax_gradients():
    check_op_gradient("Softmax", [r(3, 4)])
    check_op_gradient("LogSoftmax", [r(2, 3, 5)])


@pytest.mark.parametrize("k,s,padding", [(2, 2, "VALID"), (3, 2, "SAME"), (2, 1, "SAME")])
def test_pool_gradients(k, s, padding):
    attrs = {"ksize": [1, k, k, 1], "strides": [1, s, s, 1], "padding": padding}
    check_op_gradient("MaxPool", [r(2, 5, 4, 3)], attrs)
    check_op_gradient("AvgPool", [r(2, 5, 4, 3)], attrs)
    check_op_gradient("AvgPoolGrad", [i32([2, 5, 4, 3]),
                                      r(*fn._core.execute("AvgPool", [fn.constant(r(2, 5, 4, 3))], attrs)[0].shape)],
                      attrs, wrt=[1], none=[0])


def test_float32_gradient_kernels_match_float64():
    """The oneDNN backward kernels (float32, sizes above the reference-loop threshold)."""
    x, w = r(2, 24, 20, 16), r(3, 3, 16, 24)
    attrs = {"strides": [1, 2, 2, 1], "padding": "SAME"}
    def grads(dtype):
        xs, ws = fn.constant(x.astype(dtype)), fn.constant(w.astype(dtype))
        y = fn._core.execute("Conv2D", [xs, ws], attrs)
        dy = fn.constant(np.ones(y[0].shape.as_list(), dtype))
        return [g.numpy() for g in fn._core._op_gradient("Conv2D", [xs, ws], attrs, y, [dy])]
    for got, want in zip(grads(np.float32), grads(np.float64)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    pa = {"ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}
    for op in ("MaxPool", "AvgPool"):
        res = []
        for dtype in (np.float32, np.float64):
            xs = fn.constant(x.astype(dtype))
            y = fn._core.execute(op, [xs], pa)
            res.append(fn._core._op_gradient(op, [xs], pa, y, [fn.constant(np.ones(y[0].shape.as_list(), dtype))])[0].numpy())
        np.testing.assert_allclose(res[0], res[1], rtol=1e-5, atol=1e-5)
    for op in ("Softmax", "LogSoftmax"):
        res = []
        z = r(200, 100)
        for dtype in (np.float32, np.float64):
            zs = fn.constant(z.astype(dtype))
            y = fn._core.execute(op, [zs])
            res.append(fn._core._op_gradient(op, [zs], None, y, [fn.constant(np.cos(z).astype(dtype))])[0].numpy())
        np.testing.assert_allclose(res[0], res[1], rtol=1e-4, atol=1e-5)


def test_gradient_tape_through_a_small_convnet():
    x = fn.constant(r(1, 6, 6, 2))
    w = fn.constant(r(3, 3, 2, 4))
    b = fn.constant(r(4))
    with fn.GradientTape() as tape:
        tape.watch([w, b])
        y = fn.nn.max_pool2d(fn.nn.bias_add(fn.nn.conv2d(x, w, 1, "SAME"), b), 2, 2, "VALID")
        loss = fn.reduce_sum(fn.nn.log_softmax(fn.reshape(y, [1, -1])))
    gw, gb = tape.gradient(loss, [w, b])
    assert gw.shape == w.shape and gb.shape == b.shape


NN_TAPE_CASES = {
    "conv2d": (lambda x, w: fn.nn.conv2d(x, w, 2, "SAME"), [r(1, 5, 5, 2), r(3, 3, 2, 3)]),
    "conv2d_dilated_valid": (lambda x, w: fn.nn.conv2d(x, w, 1, "VALID", dilations=2), [r(1, 6, 5, 2), r(2, 2, 2, 2)]),
    "bias_add": (lambda x, b: fn.nn.bias_add(x, b), [r(2, 3, 4), r(4)]),
    "softmax_axis0": (lambda x: fn.nn.softmax(x, axis=0), [r(3, 4)]),
    "log_softmax": (lambda x: fn.nn.log_softmax(x), [r(2, 5)]),
    "pools": (lambda x: fn.nn.max_pool2d(x, 2, 1, "SAME") + fn.nn.avg_pool2d(x, 3, 1, "SAME"), [r(1, 4, 4, 2)]),
}


@pytest.mark.parametrize("name", sorted(NN_TAPE_CASES))
def test_nn_tape_gradients_match_finite_differences(name):
    from gradcheck import check_tape_gradient
    f, xs = NN_TAPE_CASES[name]
    check_tape_gradient(f, xs)
    check_tape_gradient(fn.function(f), xs)
