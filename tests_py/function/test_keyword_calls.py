"""Functions with keyword-only parameters and **kwargs: traced per keyword structure and
values as TF does; cached calls take the C++ fast path (issue 13)."""
import pytest

from tfbackend import IS_TF, tf

pytestmark = pytest.mark.tf_oracle


def test_kwargs_results_and_traces():
    traces = []

    @tf.function
    def f(x, **kw):
        traces.append(sorted(kw))
        return x * kw.get("scale", 1.0) + kw.get("shift", 0.0)

    x = tf.constant([1.0, 2.0])
    assert f(x).numpy().tolist() == [1.0, 2.0]
    assert f(x, scale=2.0).numpy().tolist() == [2.0, 4.0]
    assert f(x, scale=2.0).numpy().tolist() == [2.0, 4.0]
    assert f(x, shift=1.0, scale=2.0).numpy().tolist() == [3.0, 5.0]
    assert f(x, scale=2.0, shift=1.0).numpy().tolist() == [3.0, 5.0]   # keyword order: same trace
    assert f(x=x, scale=3.0).numpy().tolist() == [3.0, 6.0]
    t = tf.constant(10.0)
    assert f(x, shift=t).numpy().tolist() == [11.0, 12.0]
    assert f(x, shift=tf.constant(20.0)).numpy().tolist() == [21.0, 22.0]   # a tensor: same trace
    assert traces == [[], ["scale"], ["scale", "shift"], ["scale"], ["shift"]]


def test_keyword_only_parameters_with_and_without_defaults():
    traces = []

    @tf.function
    def g(a, *, k, m=2.0):
        traces.append(1)
        return a * k + m

    x = tf.constant(1.5)
    assert float(g(x, k=2.0)) == 5.0
    assert float(g(x, k=2.0, m=2.0)) == 5.0   # the default given explicitly: same trace
    assert float(g(a=x, k=2.0)) == 5.0
    assert float(g(x, m=1.0, k=tf.constant(4.0))) == 7.0
    assert float(g(x, m=1.0, k=tf.constant(5.0))) == 8.5
    assert len(traces) == 2
    with pytest.raises(TypeError):
        g(x)            # k is required
    with pytest.raises(TypeError):
        g(x, 2.0)       # k is keyword-only
    with pytest.raises(TypeError):
        g(x, k=1.0, other=3)
    with pytest.raises(TypeError):
        g(x, a=x, k=1.0)   # a given twice


def test_only_kwargs_and_mixed_tensor_values():
    @tf.function
    def h(**kw):
        return kw["a"] + kw["b"]

    a, b = tf.constant(1), tf.constant(2)
    assert int(h(a=a, b=b)) == 3
    assert int(h(b=b, a=a)) == 3
    assert int(h(a=b, b=b)) == 4
    with pytest.raises(TypeError):
        h(a)


@pytest.mark.fn_only
def test_keyword_cache_hits_take_the_fast_path():
    @tf.function
    def f(x, *, scale=1.0, **kw):
        return x * scale + kw["shift"]

    x = tf.constant(1.0)
    f(x, shift=x)
    f(x, scale=2.0, shift=x)
    before = f._fast_hits
    for _ in range(3):
        assert float(f(x, shift=x)) == 2.0
        assert float(f(x, scale=2.0, shift=x)) == 3.0
        assert float(f(shift=x, x=x, scale=2.0)) == 3.0
    assert f._fast_hits == before + 9
    assert f.experimental_get_tracing_count() == 2


def test_keyword_tensors_reach_the_right_parameters_in_any_order():
    @tf.function
    def f(**kw):
        return kw["b"] * 100.0 + kw["a"] * 10.0 + kw["Z"] + kw["x_"] * 1000.0

    t = [tf.constant(float(i)) for i in range(1, 5)]
    want = 1.0 * 100 + 2.0 * 10 + 3.0 + 4.0 * 1000
    for _ in range(2):
        assert float(f(b=t[0], a=t[1], Z=t[2], x_=t[3])) == want
        assert float(f(Z=t[2], x_=t[3], a=t[1], b=t[0])) == want


def test_dict_arguments_with_other_keys_keep_working():
    @tf.function
    def g(d):
        return d["a b"] * 10.0 + d["a"] + d["a'"] * 100.0

    d = {"a b": tf.constant(1.0), "a": tf.constant(2.0), "a'": tf.constant(3.0)}
    assert float(g(d)) == 312.0
    assert float(g(d)) == 312.0
