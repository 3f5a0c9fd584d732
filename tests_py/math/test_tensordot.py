"""fn.tensordot against numpy.tensordot."""
import numpy as np
import pytest

import fn


@pytest.mark.parametrize("sa,sb,axes", [((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4, 5), 0),
                                        ((2, 3, 4), (4, 2), ([0, 2], [1, 0])), ((3,), (3,), 1)])
def test_tensordot_matches_numpy(sa, sb, axes):
    rng = np.random.default_rng(0)
    a, b = rng.random(sa).astype(np.float32), rng.random(sb).astype(np.float32)
    np.testing.assert_allclose(fn.tensordot(a, b, axes).numpy(), np.tensordot(a, b, axes), rtol=1e-5)


def test_tensordot_errors_and_gradient():
    with pytest.raises(fn.errors.InvalidArgumentError):   # MatMul's check, eagerly (TF's class)
        fn.tensordot(fn.ones([2, 3]), fn.ones([4, 5]), 1)
    a = fn.constant(np.arange(6.0).reshape(2, 3))
    b = fn.constant(np.ones((3, 2)))
    with fn.GradientTape() as tape:
        tape.watch(a)
        y = fn.reduce_sum(fn.tensordot(a, b, 1))
    np.testing.assert_allclose(tape.gradient(y, a).numpy(), np.full((2, 3), 2.0))
