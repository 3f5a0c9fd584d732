"""The memory plan (cpp/exec/buffer_plan.h) reuses dead values' storage inside and across runs
of a compiled plan: results must be the same as with reuse off (FN_BUFFER_POOL_MB=0), on the
benchmark models (training steps update variables, loops carry state), and returned tensors
must never change afterwards. fn-only: this is about fn's executor, not TensorFlow's behaviour."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import fn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {bench!r})
    import fn, models_tf
    from bench_models import make_data
    data = make_data()
    out = {{}}
    for name in ("mlp_train", "cnn_infer", "rnn_train", "transformer"):
        call = models_tf.WORKLOADS[name](fn, data)
        for i in range(3):
            out[f"{{name}}_{{i}}"] = np.asarray(call())
    np.savez(sys.argv[1], **out)
""").format(bench=os.path.join(ROOT, "benchmarks"))


def run_models(path: str, pool_mb: str) -> dict:
    env = dict(os.environ, FN_BUFFER_POOL_MB=pool_mb)
    # The fn this test imported (the source tree in development, the installed package in CI).
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(fn.__file__)) + os.pathsep + env.get("PYTHONPATH", "")
    subprocess.run([sys.executable, "-c", SCRIPT, path], env=env, check=True, timeout=300)
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_benchmark_models_match_with_and_without_buffer_reuse(tmp_path):
    planned = run_models(str(tmp_path / "planned.npz"), "512")
    unplanned = run_models(str(tmp_path / "unplanned.npz"), "0")
    assert planned.keys() == unplanned.keys()
    for k in planned:
        np.testing.assert_array_equal(planned[k], unplanned[k], err_msg=k)


def test_returned_tensors_stay_intact_over_later_calls():
    w = fn.constant(np.linspace(-1, 1, 64 * 64, dtype=np.float32).reshape(64, 64))

    @fn.function
    def f(x):
        h = fn.tanh(fn.matmul(x, w))
        g = fn.tanh(fn.matmul(h, w)) + h
        return fn.reshape(h, [-1]), fn.matmul(g, w)

    x = fn.constant(np.ones((64, 64), np.float32))
    first = [t.numpy().copy() for t in f(x)]
    kept = f(x)
    for _ in range(20):
        f(x * 2.0)
    for a, b in zip(first, kept):
        np.testing.assert_array_equal(a, b.numpy())
