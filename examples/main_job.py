"""fn's main job: a few tensors and a oneDNN matmul, printed as TensorFlow prints them."""
import time

import numpy as np

import fn as tf

print(tf.constant([[1, 2], [3, 4]]))
print(repr(tf.ones([2, 2]) + tf.ones([2, 2])))
print(tf.constant("a") + tf.constant("a"))
a = np.random.default_rng(0).random((512, 512), dtype=np.float32)
b = np.random.default_rng(1).random((512, 512), dtype=np.float32)
start = time.perf_counter()
c = tf.matmul(a, b)
elapsed = time.perf_counter() - start
err = np.abs(c.numpy() - a @ b).max() / np.abs(a @ b).max()
print(f"512x512 matmul on oneDNN {tf._core.onednn_version}: {elapsed * 1e3:.2f} ms, max rel. error vs NumPy {err:.1e}")
