"""Runs chosen files of the Keras wheel's own test suite (``keras/src/**/*_test.py``) with
``KERAS_BACKEND=tensorflow`` twice: under TensorFlow 2.21 (the oracle venv) and under fn
(``python -m fn.run -m pytest``), and reports per file the tests passed under each, and the tests
that pass under TF but not under fn, with the first line of their failure.

    python tools/keras_suite.py                      # the full chosen list (slow: ~1 h)
    python tools/keras_suite.py --subset ci          # the CI subset
    python tools/keras_suite.py --files keras/src/layers/core/dense_test.py
    python tools/keras_suite.py --json out.json      # machine-readable results too

Exit status: 0 when at least ``--min-ratio`` (default 0.95) of the TF-passing tests pass under fn.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TF_PYTHON = os.path.expanduser(os.environ.get("FN_TF_PYTHON", "~/.cache/fn/tfref/bin/python"))
FN_PYTHON = os.environ.get("FN_PYTHON", os.path.join(ROOT, ".venv-test", "bin", "python"))
FN_SOURCE = os.environ.get("FN_SOURCE", os.path.join(ROOT, "python"))   # the fn tree to import

# Files TF users depend on: layers, models, trainers, optimizers, losses, metrics, callbacks,
# saving, and the TensorFlow backend's own tests.
FULL = [
    "keras/src/layers/core/dense_test.py", "keras/src/layers/core/embedding_test.py",
    "keras/src/layers/core/input_layer_test.py", "keras/src/layers/core/lambda_layer_test.py",
    "keras/src/layers/core/identity_test.py", "keras/src/layers/core/masking_test.py",
    "keras/src/layers/activations/activation_test.py", "keras/src/layers/activations/relu_test.py",
    "keras/src/layers/activations/softmax_test.py", "keras/src/layers/activations/leaky_relu_test.py",
    "keras/src/layers/convolutional/conv_test.py", "keras/src/layers/convolutional/conv_transpose_test.py",
    "keras/src/layers/convolutional/depthwise_conv_test.py", "keras/src/layers/convolutional/separable_conv_test.py",
    "keras/src/layers/pooling/max_pooling_test.py", "keras/src/layers/pooling/average_pooling_test.py",
    "keras/src/layers/pooling/global_max_pooling_test.py", "keras/src/layers/pooling/global_average_pooling_test.py",
    "keras/src/layers/rnn/lstm_test.py", "keras/src/layers/rnn/gru_test.py", "keras/src/layers/rnn/simple_rnn_test.py",
    "keras/src/layers/rnn/rnn_test.py", "keras/src/layers/rnn/bidirectional_test.py",
    "keras/src/layers/rnn/time_distributed_test.py",
    "keras/src/layers/normalization/batch_normalization_test.py",
    "keras/src/layers/normalization/layer_normalization_test.py",
    "keras/src/layers/attention/attention_test.py", "keras/src/layers/attention/multi_head_attention_test.py",
    "keras/src/layers/merging/merging_test.py",
    "keras/src/layers/reshaping/reshape_test.py", "keras/src/layers/reshaping/flatten_test.py",
    "keras/src/layers/reshaping/permute_test.py", "keras/src/layers/reshaping/repeat_vector_test.py",
    "keras/src/layers/reshaping/zero_padding2d_test.py", "keras/src/layers/reshaping/cropping2d_test.py",
    "keras/src/layers/regularization/dropout_test.py",
    "keras/src/models/sequential_test.py", "keras/src/models/functional_test.py", "keras/src/models/model_test.py",
    "keras/src/trainers/trainer_test.py",
    "keras/src/optimizers/sgd_test.py", "keras/src/optimizers/adam_test.py", "keras/src/optimizers/rmsprop_test.py",
    "keras/src/optimizers/adamw_test.py", "keras/src/optimizers/adagrad_test.py", "keras/src/optimizers/optimizer_test.py",
    "keras/src/losses/losses_test.py",
    "keras/src/metrics/accuracy_metrics_test.py", "keras/src/metrics/regression_metrics_test.py",
    "keras/src/metrics/probabilistic_metrics_test.py", "keras/src/metrics/confusion_metrics_test.py",
    "keras/src/callbacks/early_stopping_test.py", "keras/src/callbacks/model_checkpoint_test.py",
    "keras/src/callbacks/callback_test.py",
    "keras/src/saving/saving_lib_test.py", "keras/src/saving/saving_api_test.py",
    "keras/src/backend/tensorflow/saved_model_test.py", "keras/src/backend/tensorflow/name_scope_test.py",
    "keras/src/backend/tensorflow/distribute_test.py", "keras/src/backend/tensorflow/optimizer_distribute_test.py",
]
# A subset that fits CI's time.
CI = [
    "keras/src/layers/core/dense_test.py", "keras/src/layers/reshaping/flatten_test.py",
    "keras/src/layers/regularization/dropout_test.py", "keras/src/optimizers/sgd_test.py",
    "keras/src/optimizers/adam_test.py", "keras/src/losses/losses_test.py",
]


def _site_packages(python: str) -> str:
    code = ("import importlib.util, os; s = importlib.util.find_spec('keras'); "
            "print(os.path.dirname(list(s.submodule_search_locations)[0]))")   # without importing Keras
    out = subprocess.run([python, "-c", code], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{python}: cannot import keras:\n{out.stderr}")
    return out.stdout.strip().splitlines()[-1]


# The Keras repository's root conftest.py is not in the wheel, yet some test files import from it
# (`from conftest import skip_if_backend`) and use its markers: this is the part they use, loaded as
# a plugin (`-p conftest`) from the run's working directory.
_CONFTEST = '''import pytest
from keras.src.backend import backend


def pytest_configure(config):
    config.addinivalue_line("markers", "requires_trainable_backend: trainable backends only")
    config.addinivalue_line("markers", "multi_device: needs several devices")


def pytest_collection_modifyitems(config, items):
    for item in items:   # one CPU device: the multi-device tests skip, as in Keras' own CI on CPU
        if "multi_device" in item.keywords:
            item.add_marker(pytest.mark.skip(reason="Requires multiple devices"))


def skip_if_backend(given_backend, reason):
    return pytest.mark.skipif(backend() == given_backend, reason=reason)
'''
# A test file that does `import jax` at module level but uses JAX only under KERAS_BACKEND=jax
# (trainers/trainer_test.py) gets this placeholder when JAX is not installed (identically on both
# sides): its tests that do need JAX fail on both, the others run.
_NO_JAX = '''"""Placeholder for JAX (not installed): every attribute is an ImportError."""


def __getattr__(name):
    raise ImportError(f"jax is not installed (tools/keras_suite.py placeholder; jax.{name})")
'''


def _has_module(python: str, name: str) -> bool:
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({name!r}) is None)"
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def _prepare(tmp: str, test_file: str, python: str) -> List[str]:
    """Writes the conftest plugin (and the JAX placeholder when the file needs it) into ``tmp``;
    returns the extra PYTHONPATH entries."""
    with open(os.path.join(tmp, "conftest.py"), "w") as fh:
        fh.write(_CONFTEST)
    with open(test_file) as fh:
        imports_jax = any(line.startswith(("import jax", "from jax")) for line in fh)
    if not imports_jax or _has_module(python, "jax"):
        return []
    os.makedirs(os.path.join(tmp, "nojax", "jax"))
    with open(os.path.join(tmp, "nojax", "jax", "__init__.py"), "w") as fh:
        fh.write(_NO_JAX)
    return [os.path.join(tmp, "nojax")]


def run(python: str, use_fn: bool, files: List[str], timeout: float,
        partial: str = "") -> Dict[str, Dict[str, Tuple[str, str]]]:
    """{file: {test id: (outcome, first message line)}} from one pytest run per file; with
    ``partial``, the results so far are written there as JSON after each file (a long run that is
    stopped keeps what it measured)."""
    site = _site_packages(python)
    env = {**os.environ, "KERAS_BACKEND": "tensorflow", "TF_CPP_MIN_LOG_LEVEL": "3"}
    base_path = ([FN_SOURCE] if use_fn else []) + [p for p in [env.get("PYTHONPATH", "")] if p]
    results: Dict[str, Dict[str, Tuple[str, str]]] = {}
    for f in files:
        with tempfile.TemporaryDirectory() as tmp:
            xml = os.path.join(tmp, "r.xml")
            extra = _prepare(tmp, os.path.join(site, f), python)
            file_env = {**env, "PYTHONPATH": os.pathsep.join([tmp] + extra + base_path)}
            head = [python, "-m", "fn.run", "-m", "pytest"] if use_fn else [python, "-m", "pytest"]
            cmd = head + ["-q", "-p", "no:cacheprovider", "-p", "conftest", "-o", "addopts=",
                          "--rootdir", tmp, f"--junitxml={xml}", os.path.join(site, f)]
            results[f] = _run_file(cmd, tmp, file_env, xml, timeout)
        if partial:
            with open(partial, "w") as fh:
                json.dump({"fn" if use_fn else "tf": results}, fh, indent=1)
    return results


def _run_file(cmd: List[str], tmp: str, env: Dict[str, str], xml: str,
              timeout: float) -> Dict[str, Tuple[str, str]]:
    """One file's results; a file that produced no report (a crash, a timeout) is run once more,
    and if it fails again its results are the single entry ``<file>`` with the exit status and the
    end of its output (so CI's log says why, instead of listing every test as missing)."""
    problem = ""
    for _attempt in range(2):
        if os.path.exists(xml):
            os.remove(xml)
        try:
            out = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True,
                                 timeout=timeout)
        except subprocess.TimeoutExpired as e:
            text = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else e.stdout or ""
            problem = f"timeout over {timeout:.0f} s; output ends:\n{text[-1500:]}"
            print(f"[keras_suite] {cmd[-1]}: {problem}", file=sys.stderr)
            continue
        if os.path.exists(xml):
            return _parse(xml)
        problem = (f"no report, exit status {out.returncode}; output ends:\n"
                   f"{out.stdout[-1500:]}\n{out.stderr[-1500:]}")
        print(f"[keras_suite] {cmd[-1]}: {problem}", file=sys.stderr)
    return {"<file>": ("error", problem)}


def _parse(path: str) -> Dict[str, Tuple[str, str]]:
    out: Dict[str, Tuple[str, str]] = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname', '').split('.')[-1]}::{case.get('name')}"
        outcome, msg = "passed", ""
        for kind in ("failure", "error", "skipped"):
            el = case.find(kind)
            if el is not None:
                outcome = "skipped" if kind == "skipped" else "failed"
                text = (el.get("message") or el.text or "").strip()
                msg = text.splitlines()[0][:200] if text else ""
                break
        out[name] = (outcome, msg)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--subset", choices=["full", "ci"], default="full")
    ap.add_argument("--files", nargs="*")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per test file")
    ap.add_argument("--min-ratio", type=float, default=0.95)
    ap.add_argument("--json")
    ap.add_argument("--tf-results", help="reuse a previous --json's TF side (TF is the fixed oracle)")
    ap.add_argument("--fn-results", help="reuse a previous --json's fn side (compare only)")
    ap.add_argument("--side", choices=["both", "tf", "fn"], default="both",
                    help="run only one side (its results go to --json as they come, file by file)")
    args = ap.parse_args()
    if args.side != "both":
        python, use_fn = (FN_PYTHON, True) if args.side == "fn" else (TF_PYTHON, False)
        files = args.files or (CI if args.subset == "ci" else FULL)
        run(python, use_fn, files, args.timeout, partial=args.json or "")
        return 0
    files = args.files or (CI if args.subset == "ci" else FULL)
    start = time.time()
    if args.tf_results:
        tf_res = json.load(open(args.tf_results))["tf"]
        tf_res = {f: {k: tuple(v) for k, v in tf_res[f].items()} for f in files if f in tf_res}
    else:
        tf_res = run(TF_PYTHON, False, files, args.timeout)
    if args.fn_results:
        fn_res = json.load(open(args.fn_results))["fn"]
        fn_res = {f: {k: tuple(v) for k, v in fn_res[f].items()} for f in files if f in fn_res}
    else:
        fn_res = run(FN_PYTHON, True, files, args.timeout)
    total_tf = total_both = 0
    regressions: List[str] = []
    file_problems: List[str] = []
    print(f"{'file':70s} {'TF pass':>8s} {'fn pass':>8s} {'both':>6s}")
    for f in files:
        t, n = tf_res.get(f, {}), fn_res.get(f, {})
        tp = {k for k, v in t.items() if v[0] == "passed"}
        np_ = {k for k, v in n.items() if v[0] == "passed"}
        both = tp & np_
        total_tf += len(tp)
        total_both += len(both)
        print(f"{f:70s} {len(tp):8d} {len(np_):8d} {len(both):6d}")
        if "<file>" in n:   # the file produced no report, twice: one entry with the reason
            file_problems.append(f"{f}: {len(tp)} tests TF passes did not run: {n['<file>'][1]}")
            continue
        for k in sorted(tp - np_):
            regressions.append(f"{f}::{k}: {n.get(k, ('missing', ''))[1] or n.get(k, ('missing',))[0]}")
    ratio = total_both / total_tf if total_tf else 1.0
    print(f"\nTF 2.21 passes {total_tf}; fn passes {total_both} of those ({100 * ratio:.1f}%); "
          f"{time.time() - start:.0f} s")
    if regressions:
        print("\nPass under TF, not under fn:")
        for r in regressions:
            print("  " + r)
    if file_problems:   # last, so the end of a CI log shows them
        print("\nFiles that did not run under fn:")
        for p in file_problems:
            print("  " + p)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"tf": tf_res, "fn": fn_res, "ratio": ratio}, fh, indent=1)
    print(f"{total_both} passed, {total_tf - total_both} failed")
    return 0 if ratio >= args.min_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
