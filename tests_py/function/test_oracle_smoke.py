"""Smallest behaviour test of the differential layer: trace counts and results agree with TF."""
import pytest

from tfbackend import tf

pytestmark = pytest.mark.tf_oracle


def test_trace_once_per_signature():
    traces = []

    @tf.function
    def f(x):
        traces.append(1)
        return x * 2

    assert f(tf.constant(1)).numpy() == 2
    assert f(tf.constant(5)).numpy() == 10
    f(tf.constant(1.5))
    assert len(traces) == 2
