"""fn.keras.optimizers against hand-computed NumPy steps (Keras 3's update rules) and values
from TensorFlow 2.21 / Keras 3; slot variables made on first use (guide 4.10)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from tfbackend import tf as fn

pytestmark = pytest.mark.tf_oracle

GRADS = ([0.5, -1.0, 0.0], [0.25, 2.0, -1.0], [-0.5, 0.1, 3.0])
W0 = [1.0, -2.0, 0.5]


def run(opt, in_function=False):
    w = fn.Variable(W0)
    step = lambda g: opt.apply_gradients([(g, w)])  # noqa: E731
    if in_function:
        step = fn.function(step)
    for g in GRADS:
        step(fn.constant(g))
    return w.numpy()


def numpy_sgd(lr, momentum=0.0, nesterov=False):
    w, m = np.array(W0, np.float64), np.zeros(3)
    for g in map(np.array, GRADS):
        if momentum == 0:
            w -= lr * g
            continue
        m = momentum * m - lr * g
        w += momentum * m - lr * g if nesterov else m
    return w


def numpy_adam(lr, b1=0.9, b2=0.999, eps=1e-7):
    w, m, v = np.array(W0, np.float64), np.zeros(3), np.zeros(3)
    for t, g in enumerate(map(np.array, GRADS), 1):
        alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m += (g - m) * (1 - b1)
        v += (g * g - v) * (1 - b2)
        w -= m * alpha / (np.sqrt(v) + eps)
    return w


@pytest.mark.parametrize("in_function", [False, True])
@pytest.mark.parametrize("make, expected, tf_values", [
    (lambda: fn.keras.optimizers.SGD(0.1), numpy_sgd(0.1), [0.975, -2.11, 0.3]),
    (lambda: fn.keras.optimizers.SGD(0.1, momentum=0.9), numpy_sgd(0.1, 0.9), [0.867, -2.119, 0.39]),
    (lambda: fn.keras.optimizers.SGD(0.05, momentum=0.5, nesterov=True), numpy_sgd(0.05, 0.5, True),
     [0.96875, -2.08875, 0.3625]),
    (lambda: fn.keras.optimizers.Adam(0.1), numpy_adam(0.1), [0.795706570, -1.967738151, 0.531988561]),
    (lambda: fn.keras.optimizers.Adam(0.01, beta_1=0.8, beta_2=0.99, epsilon=1e-3),
     numpy_adam(0.01, 0.8, 0.99, 1e-3), [0.981021464, -1.997640371, 0.502858698]),
])
def test_updates_match_numpy_and_tensorflow(make, expected, tf_values, in_function):
    got = run(make(), in_function)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, tf_values, rtol=1e-5, atol=1e-6)


def test_optimizer_state_variables():
    opt = fn.keras.optimizers.Adam(learning_rate=0.1)
    assert [v.name for v in opt.variables] == ["iteration", "learning_rate"]
    assert [v.path for v in opt.variables] == [f"{opt.name}/iteration", f"{opt.name}/learning_rate"]
    assert not opt.built
    w = fn.Variable([1.0, 2.0])
    assert int(opt.apply_gradients([(fn.constant([0.5, -1.0]), w)])) == 1
    np.testing.assert_allclose(w.numpy(), [0.9, 2.1], rtol=1e-5)
    assert opt.built and int(opt.iterations.numpy()) == 1
    assert [v.name for v in opt.variables] == [
        "iteration", "learning_rate", "Variable_0_momentum", "Variable_0_velocity"]
    assert np.isclose(float(opt.learning_rate.numpy()), 0.1)
    opt.learning_rate = 0.5
    assert float(opt.learning_rate.numpy()) == 0.5
    sgd = fn.keras.optimizers.SGD(0.1)
    assert len(sgd.variables) == 2          # no slots without momentum


def test_apply_gradients_errors_and_none_gradients():
    opt = fn.keras.optimizers.SGD(0.1)
    a, b = fn.Variable(1.0), fn.Variable(2.0)
    opt.build([a, b])
    with pytest.raises(ValueError, match="No gradients provided for any variable."):
        opt.apply_gradients([(None, a)])
    opt.apply_gradients([(fn.constant(1.0), a), (None, b)])
    assert float(a.numpy()) == pytest.approx(0.9) and float(b.numpy()) == 2.0
    with pytest.raises(ValueError, match="Unknown variable"):
        opt.apply_gradients([(fn.constant(1.0), fn.Variable(3.0))])


def test_learning_rate_variable_is_read_by_traced_functions():
    w = fn.Variable(1.0)
    opt = fn.keras.optimizers.SGD(0.1)
    step = fn.function(lambda: opt.apply_gradients([(fn.constant(1.0), w)]))
    step()
    opt.learning_rate = 0.5
    step()
    assert float(w.numpy()) == pytest.approx(0.4)


_SINGLETON = r"function only supports singleton \w+\.Variables created on the first call"


def _train_step(w, x, y, optimizer):
    with fn.GradientTape() as tape:
        L = fn.reduce_sum(fn.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))


def test_guide_4_10_second_optimizer_in_one_function_raises():
    opt1 = fn.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = fn.keras.optimizers.Adam(learning_rate=1e-3)
    train_step = fn.function(_train_step)
    w, x, y = fn.Variable(2.0), fn.constant([-1.0]), fn.constant([2.0])
    train_step(w, x, y, opt1)
    assert float(w.numpy()) == pytest.approx(1.99, abs=1e-6)    # the first call did train
    with pytest.raises(ValueError) as e:
        train_step(w, x, y, opt2)
    assert re.search(_SINGLETON, str(e.value))
    train_step(w, x, y, opt1)                                   # opt1's trace still runs
    assert int(opt1.iterations.numpy()) == 2


def test_guide_4_10_one_concrete_function_per_optimizer():
    opt1 = fn.keras.optimizers.Adam(learning_rate=1e-2)
    opt2 = fn.keras.optimizers.Adam(learning_rate=1e-3)
    w, x, y = fn.Variable(2.0), fn.constant([-1.0]), fn.constant([2.0])
    train_step_1 = fn.function(_train_step).get_concrete_function(w, x, y, opt1)
    train_step_2 = fn.function(_train_step).get_concrete_function(w, x, y, opt2)
    assert int(opt1.iterations.numpy()) == 0     # tracing runs nothing
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y, opt1)          # the optimizer was bound at trace time
        else:
            train_step_2(w, x, y, opt2)
    assert int(opt1.iterations.numpy()) == 5 and int(opt2.iterations.numpy()) == 5
    # Same steps in NumPy: Adam on L = (w*x - y)^2, alternating the two optimizers' states.
    wv, states = 2.0, [dict(lr=1e-2, m=0.0, v=0.0, t=0), dict(lr=1e-3, m=0.0, v=0.0, t=0)]
    for i in range(10):
        s = states[i % 2]
        g = 2 * (wv * -1.0 - 2.0) * -1.0
        s["t"] += 1
        s["m"] += (g - s["m"]) * 0.1
        s["v"] += (g * g - s["v"]) * 0.001
        alpha = s["lr"] * np.sqrt(1 - 0.999 ** s["t"]) / (1 - 0.9 ** s["t"])
        wv -= s["m"] * alpha / (np.sqrt(s["v"]) + 1e-7)
    assert float(w.numpy()) == pytest.approx(wv, rel=1e-5)
