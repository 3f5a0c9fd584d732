"""Keras ``fit`` benchmark: seconds per epoch of the same models, data, weights and batch size
under Keras 3 on fn (``tf.keras`` is the real Keras package with fn as its TensorFlow) and under
Keras 3 on TensorFlow 2.21, and the loss each reaches.

    python benchmarks/bench_fit.py --compare ~/.cache/fn/tfref/bin/python   # one table, same run

Results: benchmarks/README.md ("Keras fit").
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import import_library, parser, reference_results  # noqa: E402


def make_data(np):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4096, 32)).astype(np.float32)
    w = rng.normal(size=(32, 10)).astype(np.float32)
    y = np.argmax(x @ w, axis=1).astype(np.int64)
    img = rng.normal(size=(1024, 16, 16, 3)).astype(np.float32)
    yimg = (img.mean(axis=(1, 2, 3)) > 0).astype(np.int64)
    return rng, (x, y), (img, yimg)


def models(keras):
    mlp = keras.Sequential([keras.Input((32,)), keras.layers.Dense(64, activation="relu"),
                            keras.layers.Dense(64, activation="relu"), keras.layers.Dense(10)])
    cnn = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(8, 3, activation="relu"),
                            keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(2)])
    return {"MLP 32-64-64-10, 4096 samples, batch 64": mlp, "CNN 16x16x3 conv8-pool-dense, 1024 samples, batch 32": cnn}


def measure(use_tf: bool, repeats: int) -> dict:
    tf = import_library(use_tf)
    import numpy as np
    keras = tf.keras
    rng, mlp_data, cnn_data = make_data(np)
    out = {}
    for (name, model), (x, y), batch in zip(models(keras).items(), [mlp_data, cnn_data], [64, 32]):
        wrng = np.random.default_rng(1)
        model.set_weights([(wrng.normal(size=w.shape) * 0.1).astype(np.float32) for w in model.get_weights()])
        model.compile(keras.optimizers.Adam(1e-3), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        t0 = time.perf_counter()
        model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)   # includes tracing
        first = time.perf_counter() - t0
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            h = model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0)
            times.append(time.perf_counter() - t0)
        out[name] = {"first_s": first, "epoch_s": statistics.median(times), "loss": h.history["loss"][-1]}
    return out


def main() -> None:
    a = parser(__doc__, number=1)
    a.set_defaults(repeats=5)
    args = a.parse_args()
    res = measure(args.tf, args.repeats)
    if args.json:
        print(json.dumps(res))
        return
    ref = reference_results(args, __file__)
    print(f"{'model':52s} {'fn epoch (s)':>12s} {'fn loss':>8s}" +
          (f" {'TF epoch (s)':>12s} {'TF loss':>8s} {'TF/fn':>6s}" if ref else ""))
    for k, v in res.items():
        line = f"{k:52s} {v['epoch_s']:12.4f} {v['loss']:8.4f}"
        if ref:
            r = ref[k]
            line += f" {r['epoch_s']:12.4f} {r['loss']:8.4f} {r['epoch_s'] / v['epoch_s']:5.1f}x"
        print(line)
    print("(first epoch, tracing included: " + ", ".join(f"fn {v['first_s']:.2f}s" for v in res.values()) +
          (", " + ", ".join(f"TF {r['first_s']:.2f}s" for r in ref.values()) if ref else "") + ")")


if __name__ == "__main__":
    main()
