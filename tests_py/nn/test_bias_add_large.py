"""BiasAdd on tensors large enough for the oneDNN path, against NumPy, both layouts."""
import numpy as np

import fn


def test_bias_add_channels_last_large_float32_uses_onednn_and_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 40, 40, 24)).astype(np.float32)   # 76,800 elements
    b = rng.standard_normal(24).astype(np.float32)
    np.testing.assert_allclose(fn.nn.bias_add(x, b).numpy(), x + b, rtol=1e-6)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(fn.nn.bias_add(x64, b.astype(np.float64)).numpy(), x64 + b, rtol=1e-12)


def test_bias_add_channels_first_large():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 24, 40, 40)).astype(np.float32)
    b = rng.standard_normal(24).astype(np.float32)
    got = fn.nn.bias_add(x, b, data_format="NCHW").numpy()
    np.testing.assert_allclose(got, x + b[None, :, None, None], rtol=1e-6)
